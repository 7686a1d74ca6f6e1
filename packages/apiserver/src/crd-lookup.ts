import { storeKey } from './object-entry.js';
import { isObject, type JsonObject } from './patch.js';
import type { ResourceDefinition } from './resources.js';
import type { ServerState } from './server-state.js';

/**
 * The version entry (`spec.versions[]`) of the CustomResourceDefinition that defines a
 * custom resource, at `version`, with the v1beta1 CRD's top-level fields (columns,
 * subresources, schema) filled in where the version has none.
 */
export function crdVersion(
  state: ServerState,
  definition: ResourceDefinition,
  version: string,
): JsonObject | undefined {
  if (!definition.custom) return undefined;
  const crds = state.storage.registry.find('apiextensions.k8s.io', 'customresourcedefinitions');
  if (!crds) return undefined;
  const crd = state.storage
    .storeOf(crds)
    .get(storeKey('', `${definition.resource}.${definition.group}`))?.obj;
  const spec = isObject(crd?.spec) ? crd.spec : undefined;
  if (!spec) return undefined;
  const entry = (Array.isArray(spec.versions) ? spec.versions : [])
    .filter(isObject)
    .find((v) => v.name === version);
  if (!entry) return undefined;
  const shared: JsonObject = {};
  if (spec.additionalPrinterColumns !== undefined)
    shared.additionalPrinterColumns = spec.additionalPrinterColumns;
  if (spec.subresources !== undefined) shared.subresources = spec.subresources;
  if (spec.validation !== undefined) shared.schema = spec.validation;
  return { ...shared, ...entry };
}
