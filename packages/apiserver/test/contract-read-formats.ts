import { beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufObject } from '../src/protobuf.js';
import { type ContractEndpoint, rawWatch } from './contract-client.js';
import { cm, contractCalls, expectFailure } from './contract-helpers.js';

/**
 * Reads in the forms and with the headers kube-apiserver 1.20 gives them (issue 34, second
 * round): YAML answers, PartialObjectMetadata v1beta1, API priority and fairness headers, label
 * selector errors in its words, discovery of the kubelet's pod subresources and of
 * `serviceaccounts/token`. docs/embedded-server.md names these tests.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function defineReadFormatsContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace } = contractCalls(getTarget);
  let ns: string;
  const configMaps = () => `/api/v1/namespaces/${ns}/configmaps`;

  beforeAll(async () => {
    ns = await newNamespace('formats');
    await create(configMaps(), cm('plain', { data: { x: '9', on: 'yes', a10: '1', a9: '2' } }));
  });

  describe('YAML answers', () => {
    it('answers a GET with Accept: application/yaml in YAML, keys sorted as go-yaml sorts them', async () => {
      const res = await call('GET', `${configMaps()}/plain`, {
        headers: { accept: 'application/yaml' },
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/yaml');
      // Runs of digits compare as numbers; YAML 1.1's booleans and numbers are quoted.
      expect(res.text).toMatch(
        /^apiVersion: v1\ndata:\n {2}a9: "2"\n {2}a10: "1"\n {2}"on": "yes"\n {2}x: "9"\nkind: ConfigMap\nmetadata:\n {2}creationTimestamp: "[-0-9T:]+Z"\n {2}managedFields:\n {2}- apiVersion: v1\n/,
      );
      expect(res.text).toContain(`\n  name: plain\n  namespace: ${ns}\n  resourceVersion: "`);
    });

    it('answers a list in YAML, its items without kind and apiVersion', async () => {
      const res = await call('GET', configMaps(), { headers: { accept: 'application/yaml' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/yaml');
      expect(res.text).toMatch(/^apiVersion: v1\nitems:\n- data:\n/);
      expect(res.text).toMatch(/\nkind: ConfigMapList\nmetadata:\n {2}resourceVersion: "\d+"\n$/);
    });

    it('answers JSON when JSON comes first in the Accept header', async () => {
      const res = await call('GET', `${configMaps()}/plain`, {
        headers: { accept: 'application/json, application/yaml' },
      });
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json.kind).toBe('ConfigMap');
    });
  });

  it('answers a GET with Accept: application/vnd.kubernetes.protobuf in protobuf', async () => {
    const path = `${configMaps()}/plain`;
    const res = await call('GET', path, {
      headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    const json = await call('GET', path);
    // The server's own decoder reads it back to what JSON says (on kube-apiserver, this holds
    // the decoder to kube-apiserver's encoding; here, the encoder to the decoder).
    expect(decodeProtobufObject(res.bytes, { kind: 'ConfigMap', custom: false })).toEqual(
      json.json,
    );
  });

  it('lists PartialObjectMetadataList at meta.k8s.io/v1beta1 when asked for v1beta1', async () => {
    const res = await call('GET', configMaps(), {
      headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1beta1',
      items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1' }],
    });
  });

  it('sends the API priority and fairness headers on a read, but not on a watch', async () => {
    const read = await call('GET', configMaps());
    expect(read.headers['x-kubernetes-pf-flowschema-uid']).toMatch(UUID);
    expect(read.headers['x-kubernetes-pf-prioritylevel-uid']).toMatch(UUID);
    const watch = await rawWatch(getTarget(), `${configMaps()}?watch=true`);
    watch.close();
    expect(watch.status).toBe(200);
    expect(watch.headers['x-kubernetes-pf-flowschema-uid']).toBeUndefined();
  });

  describe('label selectors that do not parse', () => {
    const cases: [selector: string, message: string][] = [
      ['a===b', "unable to parse requirement: found '=', expected: identifier"],
      ['a b', "unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', notin'"],
      ['a in b', "unable to parse requirement: found 'b' expected: '('"],
      ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
      ['a=b,', "found '', expected: identifier after ','"],
      ['!a=b', "found '=', expected: ',' or 'end of string'"],
      ['=a', "found '=', expected: !, identifier, or 'end of string'"],
      [
        'a>b',
        "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer",
      ],
      [
        'a=b$c',
        "unable to parse requirement: invalid label value: \"b$c\": at key: \"a\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
      [
        'a/b/c',
        "unable to parse requirement: invalid label key \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ];
    for (const [selector, message] of cases) {
      it(`refuses ${JSON.stringify(selector)} in kube-apiserver's words`, async () => {
        const res = await call(
          'GET',
          `${configMaps()}?labelSelector=${encodeURIComponent(selector)}`,
        );
        expectFailure(res, 400, { reason: 'BadRequest', message });
      });
    }
  });

  it('lists the pod subresources that reach the kubelet, and serviceaccounts/token, in discovery', async () => {
    const res = await call('GET', '/api/v1');
    const byName = new Map(
      (res.json.resources as { name: string }[]).map((r) => [r.name, r] as const),
    );
    expect(byName.get('pods/portforward')).toEqual({
      name: 'pods/portforward',
      singularName: '',
      namespaced: true,
      kind: 'PodPortForwardOptions',
      verbs: ['create', 'get'],
    });
    expect(byName.get('pods/proxy')).toEqual({
      name: 'pods/proxy',
      singularName: '',
      namespaced: true,
      kind: 'PodProxyOptions',
      verbs: ['create', 'delete', 'get', 'patch', 'update'],
    });
    expect(byName.get('serviceaccounts/token')).toEqual({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  });

  describe('OpenAPI descriptions', () => {
    let definitions: Record<string, { properties: Record<string, Record<string, unknown>> }>;
    const described = (definition: string, field: string) =>
      definitions[definition]?.properties[field]?.description;
    const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

    beforeAll(async () => {
      const res = await call('GET', '/openapi/v2', { headers: { accept: 'application/json' } });
      definitions = res.json.definitions;
    });

    it('writes a schema’s keys in 1.20’s order, with its descriptions', () => {
      const configMap = definitions['io.k8s.api.core.v1.ConfigMap'] as unknown as Record<
        string,
        Record<string, Record<string, unknown>>
      >;
      expect(Object.keys(configMap)).toEqual([
        'description',
        'type',
        'properties',
        'x-kubernetes-group-version-kind',
      ]);
      const properties = configMap.properties as Record<string, Record<string, unknown>>;
      expect(Object.keys(properties.binaryData ?? {})).toEqual([
        'description',
        'type',
        'additionalProperties',
      ]);
      expect(Object.keys(properties.metadata ?? {})).toEqual(['description', '$ref']);
      expect(configMap['x-kubernetes-group-version-kind']).toEqual([
        { group: '', kind: 'ConfigMap', version: 'v1' },
      ]);
      // 1.20's text: the field was beta then.
      expect(properties.immutable?.description).toMatch(
        /This is a beta field enabled by ImmutableEphemeralVolumes feature gate\.$/,
      );
    });

    it('describes Table columns with the OpenAPI descriptions of the fields they show', async () => {
      const table = async (resource: string) => {
        const res = await call('GET', `/api/v1/namespaces/${ns}/${resource}`, {
          headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
        });
        return Object.fromEntries(
          (res.json.columnDefinitions as { name: string; description: string }[]).map((c) => [
            c.name,
            c.description,
          ]),
        );
      };
      expect(await table('configmaps')).toEqual({
        Name: described(META, 'name'),
        Data: described('io.k8s.api.core.v1.ConfigMap', 'data'),
        Age: described(META, 'creationTimestamp'),
      });
      expect(await table('pods')).toEqual({
        Name: described(META, 'name'),
        Ready: 'The aggregate readiness state of this pod for accepting traffic.',
        Status: 'The aggregate status of the containers in this pod.',
        Restarts: 'The number of times the containers in this pod have been restarted.',
        Age: described(META, 'creationTimestamp'),
        IP: described('io.k8s.api.core.v1.PodStatus', 'podIP'),
        Node: described('io.k8s.api.core.v1.PodSpec', 'nodeName'),
        'Nominated Node': described('io.k8s.api.core.v1.PodStatus', 'nominatedNodeName'),
        'Readiness Gates': described('io.k8s.api.core.v1.PodSpec', 'readinessGates'),
      });
      expect(await table('secrets')).toMatchObject({
        Type: described('io.k8s.api.core.v1.Secret', 'type'),
        Data: described('io.k8s.api.core.v1.Secret', 'data'),
      });
      expect(await table('services')).toMatchObject({
        'Cluster-IP': described('io.k8s.api.core.v1.ServiceSpec', 'clusterIP'),
        Selector: described('io.k8s.api.core.v1.ServiceSpec', 'selector'),
      });
    });
  });
}
