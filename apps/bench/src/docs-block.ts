// The generated blocks of docs/benchmarks.md: one per Pod count, one for the startup
// figures, one for reconcile throughput, one for a run on several runtimes, each between its
// own markers, so a run rewrites its block and leaves the prose and the other blocks alone.
// Pure text in, text out (main.ts does the file I/O).

/**
 * Which block: the informer results for a Pod count, the startup figures, the reconcile
 * throughput for a Pod count, or a run on several runtimes (`--runtimes`).
 */
export type BlockKey = number | `reconcile-${number}` | 'startup' | 'runtimes';

/** The line that opens a block. */
export const startMarker = (key: BlockKey): string => `<!-- bench:results:${key}:start -->`;
/** The line that closes a block. */
export const endMarker = (key: BlockKey): string => `<!-- bench:results:${key}:end -->`;
const anyEndMarker = /<!-- bench:results:\d+:end -->/g;

/**
 * `text` with the block `key` set to `block`: replaced where its markers are, else a new
 * Pod-count block goes after the last results block (keeping the results together), or at
 * the end.
 */
export function replaceBlock(text: string, key: BlockKey, block: string): string {
  const generated = `${startMarker(key)}\n<!-- written by apps/bench (pnpm bench); edit outside the markers -->\n\n${block}\n\n${endMarker(key)}`;
  const start = text.indexOf(startMarker(key));
  const end = text.indexOf(endMarker(key));
  if (start >= 0 && end > start) {
    return text.slice(0, start) + generated + text.slice(end + endMarker(key).length);
  }
  if (start >= 0 || end >= 0) {
    throw new Error(
      `docs/benchmarks.md has a broken ${key} block: ${startMarker(key)} and ${endMarker(key)} must both be there, in that order`,
    );
  }
  const last = [...text.matchAll(anyEndMarker)].at(-1);
  if (last === undefined) return `${text.trimEnd()}\n\n${generated}\n`;
  const at = last.index + last[0].length;
  return `${text.slice(0, at)}\n\n${generated}${text.slice(at)}`;
}
