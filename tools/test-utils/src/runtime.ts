// Which JavaScript runtime the tests run on: scripts/test-runtimes.sh runs the packages'
// unit tests on Bun and Deno too, and a test that checks a runtime's own behaviour where it
// differs is skipped there, with the reason in the README's "Runtimes" list.

/** The runtime running this process: Node, Bun or Deno (each also sets `process.versions.node`). */
export type Runtime = 'node' | 'bun' | 'deno';

const versions: Record<string, string | undefined> = process.versions;

/** The runtime the tests run on now. */
export const runtime: Runtime =
  versions.bun !== undefined ? 'bun' : versions.deno !== undefined ? 'deno' : 'node';

/** True when the tests run on Bun. */
export const onBun = runtime === 'bun';

/** True when the tests run on Deno. */
export const onDeno = runtime === 'deno';
