import { seededRandom } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { ItemIdentityReader, type ListItemIdentity, readItemIdentity } from './item-identity.js';

const read = (text: string) => readItemIdentity(Buffer.from(text));

/** The identity JSON.parse gives `text`, as readItemIdentity reports it. */
function parsedIdentity(text: string): ListItemIdentity | undefined {
  const metadata = (JSON.parse(text) as { metadata?: Record<string, unknown> }).metadata;
  const { name, namespace, resourceVersion } = metadata ?? {};
  if (typeof name !== 'string' || typeof resourceVersion !== 'string') return undefined;
  if (name === '' || resourceVersion === '') return undefined;
  return typeof namespace === 'string' && namespace !== ''
    ? { name, namespace, resourceVersion }
    : { name, resourceVersion };
}

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
    expect(read('{"metadata":{"name":"n1","namespace":"","resourceVersion":"3"}}')).toEqual({
      name: 'n1',
      resourceVersion: '3',
    });
  });

  it('reads only its own bytes when given where the object starts and ends', () => {
    const item = '{"metadata":{"name":"a","resourceVersion":"1"}}';
    const bytes = Buffer.from(`[${item},{"metadata":{"name":"b","resourceVersion":"2"}}]`);
    expect(readItemIdentity(bytes, 1, 1 + item.length)).toEqual({
      name: 'a',
      resourceVersion: '1',
    });
    // Cut short, the same bytes are no object, whatever follows them.
    expect(readItemIdentity(bytes, 1, item.length)).toBeUndefined();
    expect(readItemIdentity(bytes, 1, item.length - 1)).toBeUndefined();
    const open = Buffer.from('{"metadata":{"name":"a","resourceVersion":"1"},"x":"yz"}');
    expect(readItemIdentity(open, 0, open.length - 3)).toBeUndefined(); // inside a string
    expect(readItemIdentity(open, 0, open.indexOf('"x"') - 1)).toBeUndefined(); // after `}`
    const number = Buffer.from('{"metadata":{"name":"a","resourceVersion":"1"},"x":12}');
    expect(readItemIdentity(number, 0, number.length - 3)).toBeUndefined(); // before the value
  });

  it('gives nothing for objects it cannot identify', () => {
    for (const text of [
      '{"metadata":{"name":"a"}}',
      '{"metadata":{"resourceVersion":"1"}}',
      '{"metadata":{"name":"","resourceVersion":"1"}}',
      '{"metadata":{"name":"a","resourceVersion":""}}',
      '{"kind":"X"}',
      '{"metadata":{"name":"a","resourceVersion":1}}',
      '{"metadata":{"name":null,"resourceVersion":"1"}}',
      '{"metadata":{"name":"a","namespace":["x"],"resourceVersion":"1"}}',
      '{"metadata":"x"}',
      '{"metadata":{}}',
      '[{"metadata":{"name":"a","resourceVersion":"1"}}]',
      '{"metadata":{"name":"a","resourceVersion":"1"',
      '{"metadata":{"name":"a","resourceVersion":"1"}',
      '{"metadata":{"name":"a","resourceVersion":"1"},}',
      '{"metadata":{"name":"a","resourceVersion":"1",}}',
      '{"metadata":{"name":"a","resourceVersion":"1"}}x',
      '{"metadata":{"name":"a","resourceVersion":"1"}}{}',
      '{"metadata":{"name":"a" "resourceVersion":"1"}}',
      '{"metadata":{"name":"a","resourceVersion":"1"} "x":1}',
      '{"metadata":{"name":"a","resourceVersion":"1"},"x":}',
      '{"metadata" {"name":"a","resourceVersion":"1"}}',
      '{"metadata";{"name":"a","resourceVersion":"1"}}',
      '{"metadata":["name":"a","resourceVersion":"1"}}',
      '{"metadata":{"name":"a","resourceVersion":"1"x}}',
      '{"metadata":{"name":"a","resourceVersion":"1"}x',
      '{metadata:{"name":"a","resourceVersion":"1"}}',
      '',
      '   ',
      '{}',
    ]) {
      expect(read(text), text).toBeUndefined();
    }
  });

  // A relisting cache hands out the object it holds under the identity read here, so a
  // crafted label, annotation or field must never make it read another object's identity.
  describe('on crafted objects', () => {
    const real = { name: 'real', namespace: 'ns', resourceVersion: '5' };

    it('reads past values that look like identity fields: in strings, with escaped quotes', () => {
      for (const text of [
        // A label value holding an identity, and one ending in an escaped backslash.
        '{"metadata":{"name":"real","namespace":"ns","resourceVersion":"5",' +
          '"labels":{"x":"\\",\\"name\\":\\"evil\\",\\"resourceVersion\\":\\"9","y":"a\\\\"}}}',
        // At metadata's own level: a string value whose escaped quotes would end it early
        // for a scanner that ignores escapes, leaving `"name":"evil"` as the last name.
        '{"metadata":{"name":"real","namespace":"ns","resourceVersion":"5",' +
          '"generateName":"\\",\\"name\\":\\"evil\\",\\"x\\":\\""}}',
        // An escaped backslash right before the closing quote, then a field.
        '{"metadata":{"name":"real","generateName":"x\\\\","namespace":"ns","resourceVersion":"5"}}',
        // A brace inside a string inside a nested object of metadata.
        '{"metadata":{"annotations":{"x":"}","name":"evil","resourceVersion":"9"},' +
          '"name":"real","namespace":"ns","resourceVersion":"5"}}',
        '{"metadata":{"annotations":{"x":"]}]}"},"name":"real","namespace":"ns","resourceVersion":"5"}}',
        // Nested `metadata` objects before the object's own: a pod template, a list.
        '{"spec":{"template":{"metadata":{"name":"evil","namespace":"ns","resourceVersion":"9"}}},' +
          '"metadata":{"name":"real","namespace":"ns","resourceVersion":"5"}}',
        '{"items":[{"metadata":{"name":"evil","namespace":"ns","resourceVersion":"9"}}],' +
          '"metadata":{"name":"real","namespace":"ns","resourceVersion":"5"}}',
        // A top-level string holding a whole metadata member.
        '{"kind":"\\",\\"metadata\\":{\\"name\\":\\"evil\\",\\"resourceVersion\\":\\"9\\"}",' +
          '"metadata":{"name":"real","namespace":"ns","resourceVersion":"5"}}',
        // Identity fields inside non-string values of metadata's other fields.
        '{"metadata":{"ownerReferences":[{"name":"evil","resourceVersion":"9"}],' +
          '"name":"real","namespace":"ns","resourceVersion":"5","finalizers":["name"]}}',
        // Whitespace everywhere JSON allows it.
        ' \n{ "metadata" :\t{ "name" : "real" ,\r\n"namespace":"ns" , "resourceVersion" : "5" } } \n',
      ]) {
        expect(parsedIdentity(text), text).toEqual(real);
        expect(read(text), text).toEqual(real);
      }
    });

    it('keeps the last of repeated identity fields in metadata, as JSON.parse does', () => {
      const text =
        '{"metadata":{"name":"evil","resourceVersion":"9","name":"real","namespace":"ns",' +
        '"resourceVersion":"5"}}';
      expect(parsedIdentity(text)).toEqual(real);
      expect(read(text)).toEqual(real);
    });

    it('refuses what it cannot read as JSON.parse would', () => {
      for (const text of [
        // A key with an escape: JSON.parse reads `name` and `metadata`.
        '{"metadata":{"name":"evil","resourceVersion":"5","na\\u006de":"real"}}',
        '{"metadata":{"name":"evil","resourceVersion":"5","\\u006eamespace":"ns"}}',
        '{"metadata":{"name":"real","namespace":"ns","resourceVersion":"9","x\\"":1}}',
        '{"m\\u0065tadata":{"name":"real","resourceVersion":"5"},"x":1}',
        '{"metadata":{"name":"evil","resourceVersion":"9"},"met\\u0061data":{"name":"real","namespace":"ns","resourceVersion":"5"}}',
        // A repeated metadata: JSON.parse keeps the last one.
        '{"metadata":{"name":"evil","resourceVersion":"9"},"metadata":{"name":"real","namespace":"ns","resourceVersion":"5"}}',
        '{"metadata":{"name":"evil","resourceVersion":"9"},"spec":{},"metadata":{"name":"real","namespace":"ns","resourceVersion":"5"}}',
        // A repeated field whose last value is not a string.
        '{"metadata":{"name":"real","namespace":"ns","resourceVersion":"5","name":null}}',
        '{"metadata":{"name":"real","namespace":"ns","resourceVersion":"5","namespace":{"x":"ns"}}}',
        '{"metadata":{"name":"real","namespace":"ns","resourceVersion":"5","resourceVersion":5}}',
        // An escape JSON.parse refuses.
        '{"metadata":{"name":"re\\al","resourceVersion":"5"}}',
        '{"metadata":{"name":"real","resourceVersion":"5\\u00"}}',
      ]) {
        expect(read(text), text).toBeUndefined();
      }
    });

    it('decodes escapes in identity values as JSON.parse does', () => {
      const text =
        '{"metadata":{"name":"r\\u0065al","namespace":"n\\u0073","resourceVersion":"\\u0035"}}';
      expect(read(text)).toEqual(real);
      const unicode =
        '{"metadata":{"name":"caf\\u00e9-\u00e9-\ud83d\ude00","resourceVersion":"1"}}';
      expect(read(unicode)).toEqual(parsedIdentity(unicode));
    });

    it('never reads an identity JSON.parse does not give, over many random objects', () => {
      const random = seededRandom(20261129);
      let identified = 0;
      let refused = 0;
      for (let n = 0; n < 4000; n++) {
        const text = randomObjectText(random);
        const oracle = parsedIdentity(text);
        const got = read(text);
        if (got === undefined) {
          refused++;
          continue;
        }
        identified++;
        expect(got, text).toEqual(oracle);
      }
      // Both outcomes are common: the generator is not missing either side.
      expect(identified).toBeGreaterThan(400);
      expect(refused).toBeGreaterThan(400);
    });
  });
});

describe('ItemIdentityReader', () => {
  const reader = new ItemIdentityReader();
  const readText = (text: string) => {
    const bytes = Buffer.from(text);
    return reader.read(bytes, 0, bytes.length);
  };
  const pod = (name: unknown, namespace: unknown, resourceVersion: unknown) => ({
    metadata: { name, namespace, resourceVersion },
  });

  it('makes the key metaNamespaceKeyFunc makes: namespace/name, or the name alone', () => {
    const keyOf = (text: string) => readText(text)?.key;
    expect(keyOf('{"metadata":{"name":"a","namespace":"ns","resourceVersion":"1"}}')).toBe('ns/a');
    expect(keyOf('{"metadata":{"namespace":"ns","name":"a","resourceVersion":"1"}}')).toBe('ns/a');
    expect(keyOf('{"metadata":{"name":"n1","resourceVersion":"1"}}')).toBe('n1');
    expect(keyOf('{"metadata":{"name":"n1","namespace":"","resourceVersion":"1"}}')).toBe('n1');
    expect(
      keyOf('{"metadata":{"name":"\\u0061b","namespace":"n\\u0073","resourceVersion":"1"}}'),
    ).toBe('ns/ab');
    expect(
      keyOf('{"metadata":{"name":"caf\u00e9","namespace":"\ud83d\ude00","resourceVersion":"1"}}'),
    ).toBe('\ud83d\ude00/caf\u00e9');
    const long = 'x'.repeat(300);
    expect(
      keyOf(`{"metadata":{"name":"${long}","namespace":"${long}","resourceVersion":"1"}}`),
    ).toBe(`${long}/${long}`);
  });

  it('gives the fields as strings while it describes the item', () => {
    const identity = readText(
      '{"metadata":{"name":"a","namespace":"ns","resourceVersion":"\\u0031"}}',
    );
    expect(identity && [identity.name, identity.namespace, identity.resourceVersion]).toEqual([
      'a',
      'ns',
      '1',
    ]);
    expect(readText('{"metadata":{"name":"a","resourceVersion":"1"}}')?.namespace).toBeUndefined();
  });

  it('tells whether an object has the identity, field by field', () => {
    const identity = readText(
      '{"metadata":{"name":"web","namespace":"ns","resourceVersion":"42"}}',
    );
    expect(identity?.isIdentityOf(pod('web', 'ns', '42'))).toBe(true);
    for (const other of [
      pod('wex', 'ns', '42'),
      pod('we', 'ns', '42'),
      pod('webb', 'ns', '42'),
      pod('web', 'nt', '42'),
      pod('web', 'n', '42'),
      pod('web', undefined, '42'),
      pod('web', 'ns', '43'),
      pod('web', 'ns', '4'),
      pod('web', 'ns', 42),
      pod(undefined, 'ns', '42'),
      { metadata: null },
      { metadata: 'web' },
      {},
      null,
      'web',
    ]) {
      expect(identity?.isIdentityOf(other), JSON.stringify(other)).toBe(false);
    }
  });

  it('matches a cluster-scoped identity only to an object without a namespace', () => {
    const identity = readText('{"metadata":{"name":"n1","resourceVersion":"3"}}');
    expect(identity?.isIdentityOf(pod('n1', undefined, '3'))).toBe(true);
    expect(identity?.isIdentityOf(pod('n1', '', '3'))).toBe(true);
    expect(identity?.isIdentityOf(pod('n1', 'ns', '3'))).toBe(false);
    expect(identity?.isIdentityOf(pod('n1', null, '3'))).toBe(false);
    const empty = readText('{"metadata":{"name":"n1","namespace":"","resourceVersion":"3"}}');
    expect(empty?.isIdentityOf(pod('n1', undefined, '3'))).toBe(true);
    expect(empty?.isIdentityOf(pod('n1', 'x', '3'))).toBe(false);
  });

  it('compares text beyond ASCII and with escapes as the decoded strings', () => {
    // Same length in bytes as in UTF-16 code units, and not: neither may be taken for equal.
    const identity = readText(
      '{"metadata":{"name":"caf\u00e9","namespace":"\ud83d\ude00","resourceVersion":"1"}}',
    );
    expect(identity?.isIdentityOf(pod('caf\u00e9', '\ud83d\ude00', '1'))).toBe(true);
    expect(identity?.isIdentityOf(pod('cafe', '\ud83d\ude00', '1'))).toBe(false);
    expect(identity?.isIdentityOf(pod('caf\u00c3\u00a9', '\ud83d\ude00', '1'))).toBe(false);
    expect(identity?.isIdentityOf(pod('caf\u00e9', '\ud83d\ude01', '1'))).toBe(false);
    expect(identity?.isIdentityOf(pod('caf\u00e9', 'abcd', '1'))).toBe(false);
    // An invalid byte decodes to U+FFFD, one code unit for one byte.
    const invalid = Buffer.concat([
      Buffer.from('{"metadata":{"name":"a'),
      Buffer.of(0xff),
      Buffer.from('","resourceVersion":"1"}}'),
    ]);
    const odd = reader.read(invalid, 0, invalid.length);
    expect(odd?.isIdentityOf(pod('a\ufffd', undefined, '1'))).toBe(true);
    expect(odd?.isIdentityOf(pod('a\u00ff', undefined, '1'))).toBe(false);
    expect(odd?.isIdentityOf(pod('ay', undefined, '1'))).toBe(false);
    const escaped = readText('{"metadata":{"name":"\\u0077eb","resourceVersion":"1"}}');
    expect(escaped?.isIdentityOf(pod('web', undefined, '1'))).toBe(true);
    expect(escaped?.isIdentityOf(pod('\\u0077eb', undefined, '1'))).toBe(false);
  });

  it('describes nothing once released or after an item it could not read', () => {
    const identity = readText('{"metadata":{"name":"a","resourceVersion":"1"}}');
    identity?.release();
    expect(() => identity?.key).toThrow(/no item read/);
    expect(identity?.isIdentityOf(pod('a', undefined, '1'))).toBe(false);
    expect(readText('{"metadata":{"name":"a","resourceVersion":1}}')).toBeUndefined();
    expect(() => reader.name).toThrow(/no item read/);
  });
});

const pieces = [
  'real',
  'evil',
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"metadata":{',
  '"name":"evil"',
  '"resourceVersion":"9"',
  '\\"',
  '\u00e9',
  '\ud83d\ude00',
  ' ',
  '\n',
];
const keys = ['metadata', 'name', 'namespace', 'resourceVersion', 'spec', 'labels', 'x'];

/**
 * The JSON text of a random object: its own serializer, so that keys can repeat and carry
 * escapes (JSON.stringify never writes either), with strings full of JSON's structure.
 */
function randomObjectText(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const randomString = (): string => {
    let s = '';
    const n = Math.floor(random() * 4);
    for (let i = 0; i < n; i++) s += pick(pieces);
    return s;
  };
  const key = (k: string): string => {
    if (random() < 0.05) {
      // An escaped letter: the same key to JSON.parse.
      const at = Math.floor(random() * k.length);
      const code = k.charCodeAt(at).toString(16).padStart(4, '0');
      return `"${k.slice(0, at)}\\u${code}${k.slice(at + 1)}"`;
    }
    return JSON.stringify(k);
  };
  const value = (depth: number): string => {
    const r = random();
    if (r < 0.45 || depth > 3) {
      return JSON.stringify(random() < 0.5 ? pick(['real', 'ns', '5']) : randomString());
    }
    if (r < 0.55) return pick(['1', '-2.5e3', 'true', 'false', 'null']);
    if (r < 0.7) {
      const n = Math.floor(random() * 3);
      return `[${Array.from({ length: n }, () => value(depth + 1)).join(',')}]`;
    }
    return object(depth + 1);
  };
  const object = (depth: number): string => {
    const members: string[] = [];
    const n = Math.floor(random() * 4);
    for (let i = 0; i < n; i++) members.push(`${key(pick(keys))}:${value(depth)}`);
    return `{${members.join(',')}}`;
  };
  const metadata = (): string => {
    const members: string[] = [];
    const fields = ['name', 'namespace', 'resourceVersion', 'labels', 'annotations', 'name'];
    for (const field of fields) {
      if (random() < 0.8) {
        const text = field === 'resourceVersion' ? pick(['5', '9']) : pick(['real', 'evil', 'ns']);
        const v = random() < 0.85 ? JSON.stringify(text) : value(2);
        members.splice(Math.floor(random() * (members.length + 1)), 0, `${key(field)}:${v}`);
      }
    }
    return `{${members.join(',')}}`;
  };
  const members: string[] = [];
  const n = 1 + Math.floor(random() * 3);
  for (let i = 0; i < n; i++) members.push(`${key(pick(keys))}:${value(1)}`);
  const at = Math.floor(random() * (members.length + 1));
  members.splice(at, 0, `${key('metadata')}:${metadata()}`);
  if (random() < 0.1) members.push(`${key('metadata')}:${metadata()}`);
  const space = random() < 0.2 ? ' ' : '';
  return `{${space}${members.join(`,${space}`)}${space}}`;
}
