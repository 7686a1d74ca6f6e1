import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls } from './contract-helpers.js';
import { type Cause, expectInvalid, invalid, QUALIFIED, required } from './validation-causes.js';

/**
 * Validation of ConfigMap and Secret contents (issue 18 item 1): key syntax, a key in both
 * bags, the 1 MiB limit, and the keys each Secret type needs, on create and update. Each case
 * holds at most one bad key per bag: kube-apiserver walks a Go map, so the order of several
 * bad keys in one bag is random there.
 */

const CONFIG_KEY =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const TOO_LONG = 'Too long: must have at most 1048576 bytes';
const REDACTED = '<secret contents redacted>';
const MIB = 1024 * 1024;

const base64 = (text: string): string => Buffer.from(text).toString('base64');

type Bags = Record<string, unknown>;

/** Request bodies and the causes kube-apiserver 1.20 answered for them. */
const CONFIGMAP_CASES: [Bags, Cause[]][] = [
  [
    { data: { 'a b': 'x' }, binaryData: { '..z': base64('x') } },
    [
      invalid('data[a b]', 'a b', CONFIG_KEY),
      invalid('binaryData[..z]', '..z', "must not start with '..'"),
    ],
  ],
  [{ data: { '.': 'x' } }, [invalid('data[.]', '.', "must not be '.'")]],
  [{ binaryData: { '..': base64('x') } }, [invalid('binaryData[..]', '..', "must not be '..'")]],
  [
    { data: { ['k'.repeat(254)]: 'x' } },
    [invalid(`data[${'k'.repeat(254)}]`, 'k'.repeat(254), 'must be no more than 253 characters')],
  ],
  [
    { data: { k: 'x' }, binaryData: { k: base64('x') } },
    [invalid('data[k]', 'k', 'duplicate of key present in binaryData')],
  ],
  [
    { data: { a: 'x'.repeat(MIB / 2) }, binaryData: { b: base64('y'.repeat(MIB / 2 + 1)) } },
    [{ reason: 'FieldValueTooLong', message: TOO_LONG, field: '[]' }],
  ],
];

const SECRET_CASES: [Bags, Cause[]][] = [
  [{ data: { 'a b': base64('x') } }, [invalid('data[a b]', 'a b', CONFIG_KEY)]],
  [{ stringData: { '..x': 'y' } }, [invalid('data[..x]', '..x', "must not start with '..'")]],
  [
    { data: { a: base64('x'.repeat(MIB / 2)) }, stringData: { b: 'y'.repeat(MIB / 2 + 1) } },
    [{ reason: 'FieldValueTooLong', message: TOO_LONG, field: 'data' }],
  ],
  [{ type: 'kubernetes.io/tls' }, [required('data[tls.crt]'), required('data[tls.key]')]],
  [{ type: 'kubernetes.io/tls', data: { 'tls.crt': '' } }, [required('data[tls.key]')]],
  [{ type: 'kubernetes.io/dockerconfigjson' }, [required('data[.dockerconfigjson]')]],
  [
    { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{x' } },
    [
      invalid(
        'data[.dockerconfigjson]',
        REDACTED,
        "invalid character 'x' looking for beginning of object key string",
      ),
    ],
  ],
  [
    { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '[1]' } },
    [
      invalid(
        'data[.dockerconfigjson]',
        REDACTED,
        'json: cannot unmarshal array into Go value of type map[string]interface {}',
      ),
    ],
  ],
  [
    { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{"a":1 }x' } },
    [invalid('data[.dockerconfigjson]', REDACTED, "invalid character 'x' after top-level value")],
  ],
  [
    { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{"a" 1}' } },
    [invalid('data[.dockerconfigjson]', REDACTED, "invalid character '1' after object key")],
  ],
  [
    { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{"a":tru}' } },
    [
      invalid(
        'data[.dockerconfigjson]',
        REDACTED,
        "invalid character '}' in literal true (expecting 'e')",
      ),
    ],
  ],
  [{ type: 'kubernetes.io/dockercfg' }, [required('data[.dockercfg]')]],
  [
    { type: 'kubernetes.io/dockercfg', stringData: { '.dockercfg': '' } },
    [invalid('data[.dockercfg]', REDACTED, 'unexpected end of JSON input')],
  ],
  [
    { type: 'kubernetes.io/dockercfg', stringData: { '.dockercfg': '{"a":[1 2]}' } },
    [invalid('data[.dockercfg]', REDACTED, "invalid character '2' after array element")],
  ],
  // kube-apiserver 1.20 names these two fields with a `%s` it never fills in.
  [
    { type: 'kubernetes.io/basic-auth' },
    [required('data[%s][username]'), required('data[%s][password]')],
  ],
  [
    { type: 'kubernetes.io/ssh-auth', stringData: { 'ssh-privatekey': '' } },
    [required('data[%s][ssh-privatekey]')],
  ],
  [
    { type: 'kubernetes.io/service-account-token' },
    [required('metadata.annotations[kubernetes.io/service-account.name]')],
  ],
];

export function defineDataValidationContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace } = contractCalls(getTarget);
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace('valid-data');
  });
  const configMap = (name: string, bags: Bags) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    ...bags,
  });
  const secret = (name: string, bags: Bags) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name },
    ...bags,
  });

  describe('validation of configmap and secret contents', () => {
    it('checks configmap keys, a key in both data and binaryData, and 1 MiB in all (422)', async () => {
      for (const [bags, causes] of CONFIGMAP_CASES) {
        const res = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          body: configMap('bad', bags),
        });
        expectInvalid(res, 'ConfigMap', 'bad', causes);
      }
      const fits = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: configMap('fits', {
          data: { a: 'x'.repeat(MIB / 2) },
          binaryData: { b: base64('y'.repeat(MIB / 2)) },
        }),
      });
      expect(fits.status).toBe(201);
    });

    it('checks secret keys (stringData merged into data first), 1 MiB, and each type’s keys (422)', async () => {
      for (const [bags, causes] of SECRET_CASES) {
        const res = await call('POST', `/api/v1/namespaces/${ns}/secrets`, {
          body: secret('bad', bags),
        });
        expectInvalid(res, 'Secret', 'bad', causes);
      }
    });

    it('accepts each type with what it needs: an empty value counts, but not for ssh-auth', async () => {
      const good: Bags[] = [
        { type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } },
        {
          type: 'kubernetes.io/dockerconfigjson',
          stringData: { '.dockerconfigjson': '{"auths":{}}' },
        },
        { type: 'kubernetes.io/dockercfg', stringData: { '.dockercfg': 'null' } },
        { type: 'kubernetes.io/basic-auth', stringData: { password: '' } },
        { type: 'kubernetes.io/ssh-auth', stringData: { 'ssh-privatekey': 'k' } },
        {
          type: 'kubernetes.io/service-account-token',
          metadata: { annotations: { 'kubernetes.io/service-account.name': 'sa' } },
        },
        { type: 'example.com/anything', data: { 'a.b_c-D': base64('x') } },
      ];
      for (const [i, bags] of good.entries()) {
        const { metadata, ...rest } = bags as { metadata?: object };
        const res = await call('POST', `/api/v1/namespaces/${ns}/secrets`, {
          body: { ...secret(`good-${i}`, rest), metadata: { name: `good-${i}`, ...metadata } },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
      }
    });

    it('checks keys and the type’s keys on update too, once each', async () => {
      const made = await create(
        `/api/v1/namespaces/${ns}/secrets`,
        secret('tls', {
          type: 'kubernetes.io/tls',
          stringData: { 'tls.crt': 'c', 'tls.key': 'k' },
        }),
      );
      const res = await call('PUT', `/api/v1/namespaces/${ns}/secrets/tls`, {
        body: { ...made.json, data: { 'tls.crt': base64('c'), 'bad key': base64('x') } },
      });
      expectInvalid(res, 'Secret', 'tls', [
        invalid('data[bad key]', 'bad key', CONFIG_KEY),
        required('data[tls.key]'),
      ]);
      const cmMade = await create(`/api/v1/namespaces/${ns}/configmaps`, configMap('keys', {}));
      const cmRes = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/keys`, {
        body: { ...cmMade.json, data: { k: 'x' }, binaryData: { k: base64('x') } },
      });
      expectInvalid(cmRes, 'ConfigMap', 'keys', [
        invalid('data[k]', 'k', 'duplicate of key present in binaryData'),
      ]);
    });

    it('lists the update rules between the metadata’s causes and the contents’ (422)', async () => {
      const made = await create(
        `/api/v1/namespaces/${ns}/secrets`,
        secret('locked', { data: { a: base64('x') }, immutable: true }),
      );
      const { immutable: _immutable, ...unlocked } = made.json;
      const res = await call('PUT', `/api/v1/namespaces/${ns}/secrets/locked`, {
        body: {
          ...unlocked,
          metadata: { ...(made.json.metadata as object), labels: { '-x': 'y' } },
          type: 'kubernetes.io/tls',
          data: { 'bad key': base64('x') },
        },
      });
      const label = invalid('metadata.labels', '-x', `name part ${QUALIFIED}`);
      const locked = 'Forbidden: field is immutable when `immutable` is set';
      expectInvalid(res, 'Secret', 'locked', [
        label,
        label,
        label,
        invalid('type', 'kubernetes.io/tls', 'field is immutable'),
        { reason: 'FieldValueForbidden', message: locked, field: 'immutable' },
        { reason: 'FieldValueForbidden', message: locked, field: 'data' },
        label,
        invalid('data[bad key]', 'bad key', CONFIG_KEY),
        required('data[tls.crt]'),
        required('data[tls.key]'),
      ]);
      const cmMade = await create(`/api/v1/namespaces/${ns}/configmaps`, {
        ...configMap('locked', { data: { a: 'x' } }),
        immutable: true,
      });
      const cmRes = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/locked`, {
        body: { ...cmMade.json, data: { 'bad key': 'x' }, binaryData: { b: base64('x') } },
      });
      expectInvalid(cmRes, 'ConfigMap', 'locked', [
        { reason: 'FieldValueForbidden', message: locked, field: 'data' },
        { reason: 'FieldValueForbidden', message: locked, field: 'binaryData' },
        invalid('data[bad key]', 'bad key', CONFIG_KEY),
      ]);
    });
  });
}
