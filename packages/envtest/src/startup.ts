import { pollUntil } from './probe.js';
import { ChildExited, type ManagedProcess } from './process.js';

/**
 * One start of the control plane in progress: the children started so far, what it waits for
 * (for the error message when the wait fails) and the last probe error. A child that exits
 * before {@link Startup.ready} aborts {@link Startup.signal}, which ends every wait at once.
 */
export class Startup {
  /** The children, in start order (etcd, then kube-apiserver). */
  readonly children: ManagedProcess[] = [];
  /** Aborted by the caller's signal, the start timeout or a child exiting early. */
  readonly signal: AbortSignal;
  /** What the start was waiting for when it last moved on. */
  waitingFor = 'preparing the temp dir';
  /** The child the start was waiting for, whose log the error quotes. */
  waitingOn: ManagedProcess | undefined;
  /** Why the last readiness probe failed. */
  lastProbeError: unknown;
  readonly #failure = new AbortController();
  #ready = false;

  constructor(signal: AbortSignal) {
    this.signal = AbortSignal.any([signal, this.#failure.signal]);
  }

  /** Registers `child`: its exit before {@link Startup.ready} fails the start. */
  watch(child: ManagedProcess): ManagedProcess {
    this.children.push(child);
    void child.exited.then((exit) => {
      if (!this.#ready) this.#failure.abort(new ChildExited(child, exit));
    });
    return child;
  }

  /** Polls `check` every `intervalMs` until it passes, waiting on `child` for `what`. */
  async waitFor(
    child: ManagedProcess,
    what: string,
    intervalMs: number,
    check: () => Promise<boolean>,
  ): Promise<void> {
    this.waitingOn = child;
    this.waitingFor = what;
    this.lastProbeError = undefined;
    await pollUntil(check, this.signal, intervalMs, (error) => {
      this.lastProbeError = error;
    });
  }

  /** Ends the start: exits are no longer failures (they are a stop, or the restarter's). */
  ready(): void {
    this.#ready = true;
  }

  /** The child whose early exit failed the start, if one did. */
  exitedChild(): ChildExited | undefined {
    const reason: unknown = this.#failure.signal.aborted ? this.#failure.signal.reason : undefined;
    return reason instanceof ChildExited ? reason : undefined;
  }

  /** Stops the children, last started first (kube-apiserver would retry a dead etcd). */
  async stopAll(graceMs: number): Promise<void> {
    for (const child of [...this.children].reverse()) await child.stop(graceMs);
  }
}
