import type { Logger } from '@kubets/apimachinery';
import type { Clientset } from '@kubets/clientset';
import {
  type EventBroadcaster,
  type EventRecorder,
  eventSinkFromClientset,
  newBroadcaster,
} from '@kubets/record';

/**
 * A recorder that drops every event: what a controller built without a manager (or a test
 * context without a recorder) hands its reconciler, so `ctx.recorder` is always callable.
 */
export const discardingEventRecorder: EventRecorder = {
  event: () => {},
  eventf: () => {},
  annotatedEventf: () => {},
};

/**
 * One event broadcaster per manager, created on the first recorder asked for (as
 * controller-runtime's lazy provider): a manager whose controllers record nothing opens no
 * event stream.
 */
export class EventRecorderProvider {
  readonly #clientset: Clientset;
  readonly #logger: Logger;
  #broadcaster: EventBroadcaster | undefined;

  constructor(clientset: Clientset, logger: Logger) {
    this.#clientset = clientset;
    this.#logger = logger;
  }

  /**
   * A recorder whose events carry `component` as their source.
   *
   * @throws {TypeError} for an empty component name.
   */
  recorderFor(component: string): EventRecorder {
    if (typeof component !== 'string' || component === '') {
      throw new TypeError(
        `eventRecorderFor needs a non-empty name (the events' source component), got ${JSON.stringify(component)}`,
      );
    }
    if (this.#broadcaster === undefined) {
      this.#broadcaster = newBroadcaster({ logger: this.#logger });
      this.#broadcaster.startRecordingToSink(eventSinkFromClientset(this.#clientset));
    }
    return this.#broadcaster.newRecorder({ component });
  }

  /** Stops the broadcaster, if one was created; events still queued are abandoned. */
  async shutdown(): Promise<void> {
    await this.#broadcaster?.shutdown();
  }
}
