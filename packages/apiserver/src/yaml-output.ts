import type { ServerResponse } from 'node:http';
import { type Pair, stringify } from 'yaml';

/** The media types kube-apiserver answers a built-in object or list in. */
export type ProducedType =
  | 'application/json'
  | 'application/yaml'
  | 'application/vnd.kubernetes.protobuf';

/**
 * The type to answer in: the first in the Accept header the server produces (kube-apiserver
 * takes the first it can serve); JSON for a wildcard or none.
 */
export function preferredMediaType(accept: string | undefined): ProducedType {
  for (const range of (accept ?? '').split(',')) {
    const type = range.split(';')[0]?.trim() ?? '';
    if (type === 'application/yaml' || type === 'application/vnd.kubernetes.protobuf') return type;
    if (type === 'application/json' || type === '*/*' || type === 'application/*') break;
  }
  return 'application/json';
}

const isLetter = (ch: string): boolean => /\p{L}/u.test(ch);
const isDigit = (ch: string): boolean => ch >= '0' && ch <= '9';

/**
 * go-yaml v2's order of map keys (kube-apiserver writes YAML through it): character by
 * character, letters after everything else, and runs of digits compared as numbers.
 */
export function goYamlKeyOrder(a: string, b: string): number {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i] as string;
    const bc = br[i] as string;
    if (ac === bc) continue;
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return ac < bc ? -1 : 1;
    if (al || bl) return bl ? -1 : 1;
    // Digits: the whole runs from here, as numbers; a run after a non-zero digit counts it.
    let an = 0;
    let bn = 0;
    if (ac === '0' || bc === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] as string); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai] as string); ai++) an = an * 10 + Number(ar[ai]);
    for (; bi < br.length && isDigit(br[bi] as string); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn ? -1 : 1;
    if (ai !== bi) return ai < bi ? -1 : 1;
    return ac < bc ? -1 : 1;
  }
  return ar.length - br.length;
}

/**
 * An encoded JSON answer as kube-apiserver's YAML serializer writes it (JSON to YAML through
 * go-yaml v2): keys sorted its way, sequences not indented under their key, strings YAML 1.1
 * would read as something else quoted.
 */
export function jsonToYaml(json: string): string {
  return stringify(JSON.parse(json), {
    version: '1.1',
    sortMapEntries: (a: Pair, b: Pair) => goYamlKeyOrder(String(a.key), String(b.key)),
    indentSeq: false,
    lineWidth: 0,
    defaultStringType: 'PLAIN',
    defaultKeyType: 'PLAIN',
  });
}

/** Writes a JSON answer as YAML with kube-apiserver's headers. */
export function sendYaml(res: ServerResponse, code: number, json: string): void {
  const body = jsonToYaml(json);
  res.writeHead(code, {
    'Content-Type': 'application/yaml',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
