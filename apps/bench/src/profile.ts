// Profiles of one measured window through the inspector, for the benchmarks that can ask for
// them (`node --cpu-prof` would cover the whole run, setup included).

import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/** What to sample: CPU time (`interval` in µs) or allocations, garbage included (`interval` in bytes). */
export type ProfileKind = 'cpu' | 'heap';

/**
 * Starts a profile when `dir` is set; the function it resolves with stops it and writes
 * `dir/<name>.cpuprofile` (Chrome DevTools' Performance panel, `top-frames.ts`) or
 * `dir/<name>.heapprofile` (the Memory panel).
 */
export async function startProfile(
  dir: string | undefined,
  kind: ProfileKind,
  interval: number,
): Promise<((name: string) => Promise<void>) | undefined> {
  if (dir === undefined) return undefined;
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  if (kind === 'heap') {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: interval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  } else {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval });
    await session.post('Profiler.start');
  }
  return async (name) => {
    const { profile } =
      kind === 'heap'
        ? await session.post('HeapProfiler.stopSampling')
        : await session.post('Profiler.stop');
    writeFileSync(path.join(dir, `${name}.${kind}profile`), JSON.stringify(profile));
    session.disconnect();
  };
}
