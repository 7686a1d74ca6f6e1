/**
 * The manifests that deploy an operator built on `@kubets/controller`: its namespace, CRDs,
 * ServiceAccount and least-privilege RBAC (from the controllers), a Deployment, and a
 * `kustomization.yaml` for `kubectl apply -k`. A subpath of its own, so that the operator
 * itself does not load the YAML writer.
 * @packageDocumentation
 */

export {
  type CrdManifestSource,
  type ManifestFile,
  type OperatorManifestsOptions,
  operatorManifests,
  toYaml,
  writeManifests,
} from './operator-manifests.js';
