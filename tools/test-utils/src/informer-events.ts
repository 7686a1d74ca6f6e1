// What an informer's handlers saw, as the e2e tests of the factories record it.

/** An object with the metadata the recorder reads. */
interface Named {
  metadata?: { name?: string | undefined; resourceVersion?: string | undefined } | undefined;
}

/** How {@link recordHandlerEvents} describes objects. */
export interface HandlerEventDescriptions<T, D, A> {
  /** What an add records (the object itself, or its name). */
  added: (obj: T) => A;
  /** The replica count an update shows, as `name old->new`. */
  replicas: (obj: T) => unknown;
  /** The name of a deleted object, which may be a tombstone. */
  deletedName: (obj: T | D) => string;
}

/**
 * A handler for `informer.addEventHandler` and what it saw: adds (as `added` describes
 * them), updates with a new resourceVersion as `name oldReplicas->newReplicas` (resyncs
 * skipped), and deletes by name.
 */
export function recordHandlerEvents<T extends Named, D, A>(
  describe: HandlerEventDescriptions<T, D, A>,
) {
  const added: A[] = [];
  const updated: string[] = [];
  const deleted: string[] = [];
  const handler = {
    onAdd: (obj: T): void => {
      added.push(describe.added(obj));
    },
    onUpdate: (oldObj: T, newObj: T): void => {
      if (oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion) return; // resync
      updated.push(
        `${newObj.metadata?.name} ${describe.replicas(oldObj)}->${describe.replicas(newObj)}`,
      );
    },
    onDelete: (obj: T | D): void => {
      deleted.push(describe.deletedName(obj));
    },
  };
  return { added, updated, deleted, handler };
}
