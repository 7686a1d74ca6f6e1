import { beforeAll, describe, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls, expectFailure } from './contract-helpers.js';

/**
 * Wrong JSON types in built-in objects (issue 18 item 1): the decoder's 400, whose message
 * names the Go types and fields on the way and quotes the bytes around where it stopped.
 * Bodies are sent as exact text (the message quotes them); expectations were answered by
 * kube-apiserver 1.20. docs/embedded-server.md names these tests.
 */

interface WrongType {
  /** What the case shows. */
  readonly title: string;
  /** `pods`, `configmaps`, `services` (core) or `deployments` (apps). */
  readonly resource: 'pods' | 'configmaps' | 'services' | 'deployments';
  /** The body, without its leading `{"apiVersion":…,"kind":…,"metadata":{"name":"x"}` part. */
  readonly rest: string;
  /** The body text that ends where the decoder stopped (the context is taken around it). */
  readonly stopsAfter: string;
  /** The message after `<Kind> in version "v1" cannot be handled as a <Kind>: `, up to the context. */
  readonly error: string;
}

const KINDS = {
  pods: ['v1', 'Pod'],
  configmaps: ['v1', 'ConfigMap'],
  services: ['v1', 'Service'],
  deployments: ['apps/v1', 'Deployment'],
} as const;

/** U+FFFD: json-iterator names a non-digit with an invalid byte, which encodes as this. */
const BAD = '\ufffd';

const CASES: readonly WrongType[] = [
  {
    title: 'a string for an int32',
    resource: 'deployments',
    rest: ',"spec":{"replicas":"3"}}',
    stopsAfter: '"replicas":"',
    error: `v1.Deployment.Spec: v1.DeploymentSpec.Replicas: readUint32: unexpected character: ${BAD}`,
  },
  {
    title: 'a float for an int32',
    resource: 'deployments',
    rest: ',"spec":{"replicas":3.5}}',
    stopsAfter: '"replicas":3',
    error:
      'v1.Deployment.Spec: v1.DeploymentSpec.Replicas: assertInteger: can not decode float as int',
  },
  {
    title: 'an int32 out of range',
    resource: 'deployments',
    rest: ',"spec":{"replicas":-3000000000}}',
    stopsAfter: '-3000000000',
    error: 'v1.Deployment.Spec: v1.DeploymentSpec.Replicas: ReadInt32: overflow: 3000000000',
  },
  {
    title: 'a string for an object',
    resource: 'deployments',
    rest: ',"spec":"x"}',
    stopsAfter: '"spec":"',
    error: 'v1.Deployment.Spec: readObjectStart: expect { or n, but found "',
  },
  {
    title: 'a number for a bool, after null',
    resource: 'deployments',
    rest: ',"spec":{"replicas":null, "paused": 1}}',
    stopsAfter: '"paused": 1',
    error: 'v1.Deployment.Spec: v1.DeploymentSpec.Paused: ReadBool: expect t or f, but found 1',
  },
  {
    title: 'an object for a list',
    resource: 'pods',
    rest: ',"spec":{"containers":{"name":"c"}}}',
    stopsAfter: '"containers":{',
    error:
      'v1.Pod.Spec: v1.PodSpec.Containers: []v1.Container: decode slice: expect [ or n, but found {',
  },
  {
    title: 'a number for a string in a list element',
    resource: 'pods',
    rest: ',"spec":{"containers":[{"name":"c","image":5}]}}',
    stopsAfter: '"image":5',
    error:
      'v1.Pod.Spec: v1.PodSpec.Containers: []v1.Container: v1.Container.Image: ReadString: expects " or n, but found 5',
  },
  {
    title: 'a number in a list of strings',
    resource: 'pods',
    rest: ',"spec":{"containers":[{"name":"c","image":"x","args":[1]}]}}',
    stopsAfter: '"args":[1',
    error:
      'v1.Pod.Spec: v1.PodSpec.Containers: []v1.Container: v1.Container.Args: []string: ReadString: expects " or n, but found 1',
  },
  {
    title: 'a string for an int64',
    resource: 'pods',
    rest: ',"spec":{"activeDeadlineSeconds":"5","containers":[]}}',
    stopsAfter: '"activeDeadlineSeconds":"',
    error: `v1.Pod.Spec: v1.PodSpec.ActiveDeadlineSeconds: readUint64: unexpected character: ${BAD}`,
  },
  {
    title: 'a string for a bool',
    resource: 'pods',
    rest: ',"spec":{"hostNetwork":"true","containers":[{"name":"c","image":"x"}]}}',
    stopsAfter: '"hostNetwork":"',
    error: 'v1.Pod.Spec: v1.PodSpec.HostNetwork: ReadBool: expect t or f, but found "',
  },
  {
    title: 'a quantity that is not one',
    resource: 'pods',
    rest: ',"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"abc"}}}]}}',
    stopsAfter: '"cpu":"abc"',
    error:
      "v1.Pod.Spec: v1.PodSpec.Containers: []v1.Container: v1.Container.Resources: v1.ResourceRequirements.Limits: unmarshalerDecoder: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  },
  {
    title: 'a number for a string map value',
    resource: 'configmaps',
    rest: ',"data":{"a":1}}',
    stopsAfter: '"a":1',
    error: 'v1.ConfigMap.Data: ReadString: expects " or n, but found 1',
  },
  {
    title: 'a list for a map',
    resource: 'configmaps',
    rest: ',"data":[]}',
    stopsAfter: '"data":[',
    error: 'v1.ConfigMap.Data: ReadMapCB: expect { or n, but found [',
  },
  {
    title: 'a string for an int32 in a list of structs',
    resource: 'services',
    rest: ',"spec":{"ports":[{"port":"80"}]}}',
    stopsAfter: '"port":"',
    error: `v1.Service.Spec: v1.ServiceSpec.Ports: []v1.ServicePort: v1.ServicePort.Port: readUint32: unexpected character: ${BAD}`,
  },
  {
    title: 'a bool for an int-or-string',
    resource: 'services',
    rest: ',"spec":{"ports":[{"port":80,"targetPort":true}]}}',
    stopsAfter: '"targetPort":true',
    error:
      'v1.Service.Spec: v1.ServiceSpec.Ports: []v1.ServicePort: v1.ServicePort.TargetPort: unmarshalerDecoder: json: cannot unmarshal bool into Go value of type int32',
  },
  {
    title: 'a float for an int-or-string',
    resource: 'services',
    rest: ',"spec":{"ports":[{"port":80,"targetPort":1.5}]}}',
    stopsAfter: '"targetPort":1.5',
    error:
      'v1.Service.Spec: v1.ServiceSpec.Ports: []v1.ServicePort: v1.ServicePort.TargetPort: unmarshalerDecoder: json: cannot unmarshal number 1.5 into Go value of type int32',
  },
];

/** json-iterator's context: 10 bytes either side of `head` and 50 either side. */
function context(raw: string, head: number): string {
  const peekStart = Math.max(0, head - 10);
  return `, error found in #${head - peekStart} byte of ...|${raw.slice(peekStart, head + 10)}|..., bigger context ...|${raw.slice(Math.max(0, head - 50), head + 50)}|...`;
}

/** Defines the wrong-type contract tests against `getTarget()`. */
export function defineWireTypesContract(getTarget: () => ContractEndpoint): void {
  const { call, newNamespace } = contractCalls(getTarget);
  let ns = '';
  beforeAll(async () => {
    ns = await newNamespace('wiretypes');
  });

  describe('wrong JSON types in built-in objects', () => {
    it.each(CASES)(
      'answers $title with the decoder’s 400',
      async ({ resource, rest, stopsAfter, error }) => {
        const [apiVersion, kind] = KINDS[resource];
        const raw = `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"x"}${rest}`;
        const base = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
        const res = await call('POST', `${base}/namespaces/${ns}/${resource}`, { body: raw });
        const at = raw.indexOf(stopsAfter) + stopsAfter.length;
        expectFailure(res, 400, {
          reason: 'BadRequest',
          message: `${kind} in version "v1" cannot be handled as a ${kind}: ${error}${context(raw, at)}`,
        });
      },
    );
  });
}
