import { describe, expect, it } from 'vitest';
import { readItemIdentity } from './item-identity.js';

const read = (text: string) => readItemIdentity(Buffer.from(text));

describe('readItemIdentity', () => {
  it('reads name, namespace and resourceVersion from metadata, wherever they are in it', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        annotations: { name: 'not-this', resourceVersion: '0' },
        managedFields: [{ fieldsV1: { 'f:metadata': { 'f:name': {} } } }],
        resourceVersion: '42',
        namespace: 'team-a',
        labels: { 'a/b': 'x"y' },
        name: 'web-1',
      },
      spec: { containers: [{ name: 'c' }] },
    };
    expect(read(JSON.stringify(pod))).toEqual({
      name: 'web-1',
      namespace: 'team-a',
      resourceVersion: '42',
    });
    expect(read(JSON.stringify(pod, null, 2))).toEqual({
      name: 'web-1',
      namespace: 'team-a',
      resourceVersion: '42',
    });
  });

  it('skips what comes before metadata, strings with braces and escapes included', () => {
    const text =
      '{"status":{"m":"}{\\"]","n":[1,{"x":[]}],"t":true,"z":null,"f":-1.5e3},' +
      '"metadata":{"name":"a\\u0062c","resourceVersion":"7"}}';
    expect(read(text)).toEqual({ name: 'abc', resourceVersion: '7' });
  });

  it('leaves namespace out for cluster-scoped objects', () => {
    expect(read('{"metadata":{"name":"n1","resourceVersion":"3"}}')).toEqual({
      name: 'n1',
      resourceVersion: '3',
    });
  });

  it('gives nothing for objects it cannot identify', () => {
    for (const text of [
      '{"metadata":{"name":"a"}}',
      '{"metadata":{"resourceVersion":"1"}}',
      '{"kind":"X"}',
      '{"metadata":{"name":"a","resourceVersion":1}}',
      '{"metadata":"x"}',
      '[{"metadata":{"name":"a","resourceVersion":"1"}}]',
      '{"metadata":{"name":"a","resourceVersion":"1"',
      '',
      '{}',
    ]) {
      expect(read(text), text).toBeUndefined();
    }
  });
});
