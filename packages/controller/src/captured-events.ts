import type { corev1 } from '@kubets/clientset';
import { type EventRecorder, newBroadcaster } from '@kubets/record';

/**
 * A recorder that keeps its events in memory for a test to look at (client-go's
 * `record.FakeRecorder`), built on a real `@kubets/record` broadcaster so the events carry
 * what the API server would get: the formatted message, the involved object, the source.
 */
export interface CapturedEvents {
  /** A recorder to hand a reconciler (`ctx.recorder`); its events name `component` as their source. */
  recorderFor(component: string): EventRecorder;
  /** Every event recorded so far, in recording order, once the broadcaster has handled them. */
  events(): Promise<corev1.Event[]>;
  /** Forgets the events recorded so far. */
  clear(): void;
  /** Stops the broadcaster; later events are dropped. */
  shutdown(): Promise<void>;
}

/** A new {@link CapturedEvents}: its recorders share one broadcaster, so one event order. */
export function captureEvents(): CapturedEvents {
  const broadcaster = newBroadcaster();
  let captured: corev1.Event[] = [];
  broadcaster.startEventWatcher((event) => {
    captured.push(event as corev1.Event);
  });
  return {
    recorderFor: (component) => broadcaster.newRecorder({ component }),
    events: async () => {
      await broadcaster.flush();
      return [...captured];
    },
    clear: () => {
      captured = [];
    },
    shutdown: () => broadcaster.shutdown(),
  };
}
