/**
 * What `kubectl explain` (1.34) lists under FIELDS for a few built-in kinds on kube-apiserver
 * 1.20, as `name <type>` with ` -required-` for required fields. 1.20 serves no /openapi/v3,
 * so kubectl falls back to /openapi/v2 and prints every reference type as `Object`; read from
 * /openapi/v3, it prints the type's name instead (`<[]Container>`): {@link explainedFields}
 * folds those back to `Object`, so the two servers compare. Descriptions are left out: they
 * are reworded from release to release.
 */
export const EXPLAINED_FIELDS_1_20: Readonly<Record<string, readonly string[]>> = {
  configmap: [
    'apiVersion <string>',
    'binaryData <map[string]string>',
    'data <map[string]string>',
    'immutable <boolean>',
    'kind <string>',
    'metadata <Object>',
  ],
  'deployment.spec': [
    'minReadySeconds <integer>',
    'paused <boolean>',
    'progressDeadlineSeconds <integer>',
    'replicas <integer>',
    'revisionHistoryLimit <integer>',
    'selector <Object> -required-',
    'strategy <Object>',
    'template <Object> -required-',
  ],
  'pod.spec.containers': [
    'args <[]string>',
    'command <[]string>',
    'env <[]Object>',
    'envFrom <[]Object>',
    'image <string>',
    'imagePullPolicy <string>',
    'lifecycle <Object>',
    'livenessProbe <Object>',
    'name <string> -required-',
    'ports <[]Object>',
    'readinessProbe <Object>',
    'resources <Object>',
    'securityContext <Object>',
    'startupProbe <Object>',
    'stdin <boolean>',
    'stdinOnce <boolean>',
    'terminationMessagePath <string>',
    'terminationMessagePolicy <string>',
    'tty <boolean>',
    'volumeDevices <[]Object>',
    'volumeMounts <[]Object>',
    'workingDir <string>',
  ],
  'cronjob.spec': [
    'concurrencyPolicy <string>',
    'failedJobsHistoryLimit <integer>',
    'jobTemplate <Object> -required-',
    'schedule <string> -required-',
    'startingDeadlineSeconds <integer>',
    'successfulJobsHistoryLimit <integer>',
    'suspend <boolean>',
  ],
  'service.spec.ports': [
    'appProtocol <string>',
    'name <string>',
    'nodePort <integer>',
    'port <integer> -required-',
    'protocol <string>',
    'targetPort <string>',
  ],
};

const SCALARS = new Set(['string', 'integer', 'number', 'boolean', 'Object']);

/**
 * The FIELDS lines of `kubectl explain` output as `name <type>[ -required-]`, with named
 * reference types (`Container`, `[]EnvVar`, `map[string]Quantity`) written `Object`.
 */
export function explainedFields(output: string): string[] {
  const fields: string[] = [];
  for (const m of output.matchAll(/^\s+(\S+)\t<([^>]+)>( -required-)?$/gm)) {
    const type = (m[2] ?? '').replace(/[A-Za-z]+$/, (inner) =>
      SCALARS.has(inner) ? inner : 'Object',
    );
    fields.push(`${m[1]} <${type}>${m[3] ?? ''}`);
  }
  return fields;
}
