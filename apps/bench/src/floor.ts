// What any Node client does with a watch response, and nothing more: the floor the
// benchmarks hold kubets' watch path against (watch-floor.ts over HTTPS, watch-path.ts in
// process).

import type { Readable } from 'node:stream';

/**
 * Reads `body` as UTF-8 text, splits it into lines and `JSON.parse`s every line, calling
 * `seen()` for each MODIFIED event.
 */
export function readWatchLines(body: Readable, seen: () => void): void {
  body.setEncoding('utf8');
  let partial = '';
  body.on('data', (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (JSON.parse(line).type === 'MODIFIED') seen();
  });
}
