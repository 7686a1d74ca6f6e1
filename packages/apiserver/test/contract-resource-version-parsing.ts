import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { cm, contractCalls } from './contract-helpers.js';

/**
 * How kube-apiserver 1.20 parses a `resourceVersion` (a uint64, digits only) and a continue
 * token's (an int64 JSON number), answered by each path that reads it: the watch cache refuses
 * a bad value with a 500 without a reason, etcd with a 400.
 */

/** Values Go's `strconv.ParseUint(v, 10, 64)` refuses, and why. */
const UNPARSABLE: ReadonlyArray<readonly [value: string, why: string]> = [
  ['abc', 'invalid syntax'],
  ['-1', 'invalid syntax'],
  ['+5', 'invalid syntax'],
  [' 5', 'invalid syntax'],
  ['0x10', 'invalid syntax'],
  ['1e3', 'invalid syntax'],
  ['1_0', 'invalid syntax'],
  ['18446744073709551616', 'value out of range'],
  ['123456789012345678901234567890', 'value out of range'],
];

/** List and get queries by the storage that serves them on 1.20. */
const WATCH_CACHE_QUERIES = [
  'OBJECT?resourceVersion=RV',
  'LIST?resourceVersion=RV',
  'LIST?resourceVersion=RV&resourceVersionMatch=NotOlderThan',
  'LIST?resourceVersion=RV&watch=true',
];
const ETCD_QUERIES = [
  'LIST?resourceVersion=RV&resourceVersionMatch=Exact',
  'LIST?resourceVersion=RV&limit=1',
  'LIST?resourceVersion=RV&resourceVersionMatch=NotOlderThan&limit=1',
  'LIST?resourceVersion=RV&limit=1&continue=TOKEN',
];

/** A continue token's `rv` (JSON text) and what 1.20 answers to a list continuing from it. */
const CONTINUE_TOKENS: ReadonlyArray<readonly [rv: string, answer: string]> = [
  [
    '123456789012345678901234567890',
    'json: cannot unmarshal number 123456789012345678901234567890 into Go struct field continueToken.rv of type int64',
  ],
  [
    '9223372036854775808',
    'json: cannot unmarshal number 9223372036854775808 into Go struct field continueToken.rv of type int64',
  ],
  ['1.5', 'json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64'],
  ['1e3', 'json: cannot unmarshal number 1e3 into Go struct field continueToken.rv of type int64'],
  ['"5"', 'json: cannot unmarshal string into Go struct field continueToken.rv of type int64'],
  ['true', 'json: cannot unmarshal bool into Go struct field continueToken.rv of type int64'],
  ['0', 'incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
  ['null', 'incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
  // An int64 past the server's revision reaches etcd.
  ['9223372036854775807', 'FUTURE'],
  ['12345678901234567', 'FUTURE'],
];

/**
 * A continue token (the text before base64, or `raw:` and the token as sent) that
 * `encoding/json` or the base64 decoder refuses, and 1.20's reason after `continue key is not
 * valid: ` (null: the token is accepted).
 */
const MALFORMED_TOKENS: ReadonlyArray<readonly [token: string, answer: string | null]> = [
  ['hello', "invalid character 'h' looking for beginning of value"],
  ['{"v":"meta.k8s.io/v1","rv":5', 'unexpected end of JSON input'],
  ['  ', 'unexpected end of JSON input'],
  ['nul', "invalid character ' ' in literal null (expecting 'l')"],
  ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
  ['{"v":"meta.k8s.io/v1","rv":5,"start":"a"}x', "invalid character 'x' after top-level value"],
  ['{"v":"meta.k8s.io/v1","rv":5,"start":"a"}{}', "invalid character '{' after top-level value"],
  [
    '{"v":"meta.k8s.io/v1","rv":5,"start":"a",}',
    "invalid character '}' looking for beginning of object key string",
  ],
  ['{"v":"meta.k8s.io/v1" "rv":5}', `invalid character '"' after object key:value pair`],
  ["{'v':1}", "invalid character '\\'' looking for beginning of object key string"],
  [
    '{"v":"meta.k8s.io/v1","rv":01,"start":"a"}',
    "invalid character '1' after object key:value pair",
  ],
  ['{"v":"a\u0001"}', "invalid character '\\x01' in string literal"],
  ['{"v":"\\x"}', "invalid character 'x' in string escape code"],
  ['\u00ff', "invalid character 'Ã' looking for beginning of value"],
  ['{"v":1}', 'json: cannot unmarshal number into Go struct field continueToken.v of type string'],
  [
    '{"start":5}',
    'json: cannot unmarshal number into Go struct field continueToken.start of type string',
  ],
  [
    '{"v":"meta.k8s.io/v1","rv":5,"start":["a"]}',
    'json: cannot unmarshal array into Go struct field continueToken.start of type string',
  ],
  ['[1,2]', 'json: cannot unmarshal array into Go value of type etcd3.continueToken'],
  ['"str"', 'json: cannot unmarshal string into Go value of type etcd3.continueToken'],
  ['123', 'json: cannot unmarshal number into Go value of type etcd3.continueToken'],
  ['true', 'json: cannot unmarshal bool into Go value of type etcd3.continueToken'],
  ['null', 'server does not recognize this encoded version ""'],
  [
    '{"v":"meta.k8s.io/v1","rv":5,"start":null}',
    'encoded start key empty (version meta.k8s.io/v1)',
  ],
  // Go matches keys ignoring case, ignores unknown ones and trailing space (rv -1: the current
  // state, never compacted).
  ['{"V":"meta.k8s.io/v1","RV":-1,"Start":"a"}', null],
  ['{"v":"meta.k8s.io/v1","rv":-1,"start":"a","x":1} ', null],
  ['raw:abc=', 'illegal base64 data at input byte 3'],
  ['raw:a', 'illegal base64 data at input byte 0'],
  ['raw:ab', "invalid character 'i' looking for beginning of value"],
  ['raw:e30', 'server does not recognize this encoded version ""'],
];

function token(rvJson: string, extra = ''): string {
  return Buffer.from(`{"v":"meta.k8s.io/v1","rv":${rvJson},"start":"a\\u0000"${extra}}`).toString(
    'base64url',
  );
}

/** The whole failure Status, which carries a reason only when the server gives one. */
function status(code: number, message: string, reason?: string): Record<string, unknown> {
  const head = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message };
  return reason === undefined ? { ...head, code } : { ...head, reason, code };
}

/** Registers the tests in the caller's describe block. */
export function defineResourceVersionParsingContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace } = contractCalls(getTarget);

  async function configMaps(prefix: string): Promise<{ list: string; object: string }> {
    const ns = await newNamespace(prefix);
    const list = `/api/v1/namespaces/${ns}/configmaps`;
    await create(list, cm('a'));
    await create(list, cm('b'));
    return { list, object: `${list}/a` };
  }

  function url(query: string, paths: { list: string; object: string }, rv: string): string {
    return query
      .replace('OBJECT', paths.object)
      .replace('LIST', paths.list)
      .replace('RV', encodeURIComponent(rv))
      .replace('TOKEN', token('1'));
  }

  it('refuses a resourceVersion that is not a uint64 at once: 500 from the watch cache, 400 from etcd', async () => {
    const paths = await configMaps('rv-parse');
    for (const [value, why] of UNPARSABLE) {
      const quoted = JSON.stringify(value);
      const invalid = `resourceVersion: Invalid value: ${quoted}: strconv.ParseUint: parsing ${quoted}: ${why}`;
      const answers = [
        { queries: WATCH_CACHE_QUERIES, body: status(500, invalid) },
        {
          queries: ETCD_QUERIES,
          body: status(400, `invalid resource version: ${invalid}`, 'BadRequest'),
        },
      ];
      for (const { queries, body } of answers) {
        for (const query of queries) {
          const res = await call('GET', url(query, paths, value));
          expect({ query, value, status: res.status, body: res.json }).toEqual({
            query,
            value,
            status: body.code,
            body,
          });
        }
      }
    }
  });

  it('reads a uint64 past int64 from etcd as the current state, too old for it (504)', async () => {
    const paths = await configMaps('rv-uint64');
    const max = '18446744073709551615';
    for (const query of ETCD_QUERIES.slice(0, 3)) {
      const res = await call('GET', url(query, paths, max));
      expect(res.status).toBe(504);
      const current = /current: (\d+)$/.exec(res.json.message)?.[1];
      expect(res.json).toEqual({
        ...status(
          504,
          `Timeout: Too large resource version: ${max}, current: ${current}`,
          'Timeout',
        ),
        details: {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        },
      });
    }
  });

  it('reads leading zeros as the number, and 00 as the current state even for an exact list', async () => {
    const paths = await configMaps('rv-zeros');
    const listed = await call('GET', paths.list);
    // The newest ConfigMap's resourceVersion, not the list's: the list carries etcd's current
    // revision, which a write to any other resource may have moved past every ConfigMap, and
    // kube-apiserver 1.20's ConfigMap watch cache learns of revisions only from ConfigMap
    // events, so a read at the list's revision could wait out its 3 s and answer 504.
    const rv = String(
      Math.max(
        ...listed.json.items.map((i: { metadata: { resourceVersion: string } }) =>
          Number(i.metadata.resourceVersion),
        ),
      ),
    );
    for (const query of [...WATCH_CACHE_QUERIES.slice(0, 3), ...ETCD_QUERIES.slice(0, 3)]) {
      for (const value of ['00', `000${rv}`]) {
        const res = await call('GET', url(query, paths, value));
        expect({ query, value, status: res.status }).toEqual({ query, value, status: 200 });
        if (res.json.items) {
          expect(
            // The watch cache lists in no particular order.
            res.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(),
          ).toEqual(query.includes('limit=1') ? ['a'] : ['a', 'b']);
        }
      }
    }
  });

  it("decodes a continue token's resourceVersion as an int64", async () => {
    const { list } = await configMaps('rv-continue');
    for (const [rv, answer] of CONTINUE_TOKENS) {
      const res = await call('GET', `${list}?limit=1&continue=${token(rv)}`);
      const expected =
        answer === 'FUTURE'
          ? status(500, 'etcdserver: mvcc: required revision is a future revision')
          : status(
              400,
              `invalid continue token: continue key is not valid: ${answer}`,
              'BadRequest',
            );
      expect({ rv, status: res.status, body: res.json }).toEqual({
        rv,
        status: expected.code,
        body: expected,
      });
    }
    // A negative one asks for the current state.
    const current = await call('GET', `${list}?limit=1&continue=${token('-1')}`);
    expect(current.status).toBe(200);
    expect(current.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      'b',
    ]);
    const other = Buffer.from('{"v":"meta.k8s.io/v2","rv":5,"start":"a"}').toString('base64url');
    const unknownVersion = await call('GET', `${list}?limit=1&continue=${other}`);
    expect(unknownVersion.json).toEqual(
      status(
        400,
        'invalid continue token: continue key is not valid: server does not recognize this encoded version "meta.k8s.io/v2"',
        'BadRequest',
      ),
    );
  });

  it('answers a continue token that is not valid base64 or JSON with Go’s decoder texts', async () => {
    const { list } = await configMaps('rv-malformed');
    const answers: unknown[] = [];
    for (const [text, answer] of MALFORMED_TOKENS) {
      const sent = text.startsWith('raw:')
        ? text.slice(4)
        : Buffer.from(text, 'utf8').toString('base64url');
      const res = await call('GET', `${list}?limit=1&continue=${encodeURIComponent(sent)}`);
      answers.push([text, answer === null ? res.status : res.json]);
    }
    expect(answers).toEqual(
      MALFORMED_TOKENS.map(([text, answer]) => [
        text,
        answer === null
          ? 200
          : status(
              400,
              `invalid continue token: continue key is not valid: ${answer}`,
              'BadRequest',
            ),
      ]),
    );
  });
}
