// The patcher of the watch benchmarks (watch-floor.ts, watch-h2.ts): one Pod, patched again
// and again, each patch a new `step` label value, so every patch is one MODIFIED event.

import { writeFileSync } from 'node:fs';
import { PatchType, type RESTClient } from '@kubets/rest';

/** What the measuring process asks the patcher for. */
export interface PatchRequest {
  /** Patches to send, one after the other. */
  events: number;
  /** Milliseconds between patches; 0 sends each as soon as the previous one is answered. */
  intervalMs: number;
  /** When set, the patcher creates this file once the last patch is answered. */
  doneFile?: string | undefined;
}

/**
 * Merge-patches the `step` label of Pod `namespace/name` `events` times, setting
 * `firstStep`, `firstStep + 1`, ...; resolves with the step after the last one set.
 */
export async function patchOnePod(
  core: RESTClient,
  namespace: string,
  name: string,
  request: PatchRequest,
  firstStep = 0,
): Promise<number> {
  let step = firstStep;
  for (let i = 0; i < request.events; i++) {
    await core
      .patch(PatchType.MergePatch)
      .namespace(namespace)
      .resource('pods')
      .name(name)
      .body({ metadata: { labels: { step: String(step++) } } })
      .do();
    if (request.intervalMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, request.intervalMs));
    }
  }
  if (request.doneFile !== undefined) writeFileSync(request.doneFile, `${step}\n`);
  return step;
}

/** Counts a watch's events and takes the CPU they cost (see {@link cpuWindow}). */
export interface CpuWindow {
  /** Call for every event counted. */
  seen(): void;
  /**
   * Starts the CPU clock now instead of at the first event: for a backlog, whose reading
   * (before any event is decoded) is part of what is measured.
   */
  start(): void;
  /** CPU used from the start (by default the first event) up to the `events`-th (user + system). */
  finished: Promise<NodeJS.CpuUsage>;
}

/**
 * Starts the CPU clock at the first event (or at `start()`) and stops it at the
 * `events`-th, so that only the events themselves are measured, not opening the watch.
 */
export function cpuWindow(events: number): CpuWindow {
  let count = 0;
  let cpuStart: NodeJS.CpuUsage | undefined;
  let done: (cpu: NodeJS.CpuUsage) => void = () => {};
  const finished = new Promise<NodeJS.CpuUsage>((resolve) => {
    done = resolve;
  });
  return {
    start() {
      cpuStart = process.cpuUsage();
    },
    seen() {
      cpuStart ??= process.cpuUsage();
      if (++count === events) done(process.cpuUsage(cpuStart));
    },
    finished,
  };
}
