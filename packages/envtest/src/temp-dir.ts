import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trackTempDir, untrackTempDir } from './process.js';

/** A directory of throwaway files (certificates, data, logs, a kubeconfig). */
export interface TempDir {
  /** Its absolute path. */
  readonly path: string;
  /** Removes it and everything in it. Safe to call more than once. */
  remove(): Promise<void>;
}

/**
 * Creates a new directory under the OS temp dir, named `<prefix>-XXXXXX`. If the process exits
 * before {@link TempDir.remove} was called (a crash, `process.exit()`, a forgotten `afterAll`),
 * it is removed on `process.on('exit')`, as envtest's own directory is.
 */
export async function createTempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `${prefix}-`));
  trackTempDir(path);
  let removing: Promise<void> | undefined;
  return {
    path,
    remove() {
      removing ??= (async () => {
        await rm(path, { recursive: true, force: true, maxRetries: 3 });
        untrackTempDir(path);
      })();
      return removing;
    },
  };
}
