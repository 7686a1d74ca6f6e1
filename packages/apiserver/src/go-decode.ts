/**
 * kube-apiserver's decoder errors: the raw request text a body was parsed from, the context
 * json-iterator appends to its errors, and Go's base64 decoding of Secret data.
 */
import { isObject, type JsonObject, type JsonValue } from './patch.js';

const rawBodies = new WeakMap<JsonObject, string>();

/** Remembers the request text `obj` was parsed from (its decoder errors quote it). */
export function rememberRawBody(obj: JsonObject, text: string): void {
  rawBodies.set(obj, text);
}

/** The request text `obj` was parsed from; its compact JSON when it was not parsed from one. */
export function rawBodyOf(obj: JsonObject): string {
  return rawBodies.get(obj) ?? JSON.stringify(obj);
}

/**
 * The suffix json-iterator adds to a decoding error at byte offset `head` of `raw`:
 * `, error found in #N byte of ...|<10 bytes around>|..., bigger context ...|<50 around>|...`.
 */
export function iteratorContext(raw: string, head: number): string {
  const buf = Buffer.from(raw, 'utf8');
  const at = Math.min(head, buf.length);
  const peekStart = Math.max(0, at - 10);
  const peek = buf.subarray(peekStart, Math.min(buf.length, at + 10)).toString('utf8');
  const context = buf
    .subarray(Math.max(0, at - 50), Math.min(buf.length, at + 50))
    .toString('utf8');
  return `, error found in #${at - peekStart} byte of ...|${peek}|..., bigger context ...|${context}|...`;
}

const BASE64 = /[A-Za-z0-9+/]/;

/**
 * The offset Go's `base64.StdEncoding.DecodeString` reports as `illegal base64 data at input
 * byte N` for `value`, or undefined when it decodes (padding required, newlines skipped).
 */
export function base64ErrorOffset(value: string): number | undefined {
  let si = 0;
  const skipNewlines = (): void => {
    while (si < value.length && (value[si] === '\n' || value[si] === '\r')) si++;
  };
  while (si < value.length) {
    let j = 0;
    for (; j < 4; j++) {
      if (si === value.length) {
        if (j === 0) return undefined;
        return si - j;
      }
      const c = value[si] as string;
      si++;
      if (BASE64.test(c)) continue;
      if (c === '\n' || c === '\r') {
        j--;
        continue;
      }
      if (c !== '=') return si - 1;
      // Padding: only in the third or fourth place, and the rest must be padding too.
      if (j < 2) return si - 1;
      if (j === 2) {
        skipNewlines();
        if (si === value.length) return value.length;
        if (value[si] !== '=') return si - 1;
        si++;
      }
      skipNewlines();
      if (si < value.length) return si;
      return undefined;
    }
  }
  return undefined;
}

/**
 * The byte offset in `raw` just after the JSON string `value` of key `key` inside the object
 * of key `parent` (where json-iterator stands when that value fails to decode); the end of
 * `raw` when it cannot be found.
 */
export function valueEndOffset(raw: string, parent: string, key: string, value: string): number {
  const parentAt = raw.indexOf(JSON.stringify(parent));
  const pattern = new RegExp(
    `${escapeRegExp(JSON.stringify(key))}\\s*:\\s*${escapeRegExp(JSON.stringify(value))}`,
    'g',
  );
  pattern.lastIndex = Math.max(0, parentAt);
  const match = pattern.exec(raw);
  if (!match) return Buffer.byteLength(raw, 'utf8');
  return Buffer.byteLength(raw.slice(0, match.index + match[0].length), 'utf8');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `value` with every object's keys sorted, as Go's `encoding/json` writes a map: how
 * kube-apiserver encodes a custom resource, which it holds as `map[string]interface{}`.
 */
export function goSortedKeys<T extends JsonValue>(value: T): T;
export function goSortedKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(goSortedKeys);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = goSortedKeys(value[key] as JsonValue);
  return out;
}

/**
 * Go's `json.Marshal` of a decoded object: keys sorted at every level, and `<`, `>`, `&`,
 * U+2028 and U+2029 escaped, as kube-apiserver re-encodes a patched custom resource.
 */
export function goMarshal(value: JsonValue): string {
  return JSON.stringify(goSortedKeys(value)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
