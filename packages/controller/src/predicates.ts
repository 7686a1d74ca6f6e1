import {
  type HasObjectMeta,
  type LabelSelector,
  labelSelectorAsSelector,
  parseSelector,
  type Selector,
} from '@kubets/apimachinery';

/** An object appeared (informer add). */
export interface CreateEvent<T> {
  /** The new object. */
  readonly object: T;
  /**
   * True when the object came with the informer's initial list rather than a later watch
   * event (controller-runtime's `IsInInitialList`); unset for events made by hand.
   */
  readonly isInInitialList?: boolean;
}

/** An object changed, or a resync re-delivered it (informer update). */
export interface UpdateEvent<T> {
  /** The object before the change. */
  readonly objectOld: T;
  /** The object after the change. */
  readonly objectNew: T;
}

/** An object was deleted (informer delete). */
export interface DeleteEvent<T> {
  /** The object's last known state. */
  readonly object: T;
  /** True when the deletion was noticed late (by a relist), so `object` may be stale. */
  readonly deleteStateUnknown: boolean;
}

/** An event from a source other than an informer. */
export interface GenericEvent<T> {
  /** The object the event is about. */
  readonly object: T;
}

/**
 * Decides which events reach the reconciler (controller-runtime's `predicate.Predicate`):
 * an event is enqueued only when every predicate of its watch returns true.
 */
export interface Predicate<T> {
  /** Whether an add is enqueued. */
  readonly create: (event: CreateEvent<T>) => boolean;
  /** Whether an update is enqueued. */
  readonly update: (event: UpdateEvent<T>) => boolean;
  /** Whether a delete is enqueued. */
  readonly delete: (event: DeleteEvent<T>) => boolean;
  /** Whether a generic event is enqueued. */
  readonly generic: (event: GenericEvent<T>) => boolean;
}

const yes = (): boolean => true;

/**
 * A predicate from the functions given; a missing one lets every event of its kind through
 * (controller-runtime's `predicate.Funcs`).
 */
export function predicateFuncs<T>(funcs: Partial<Predicate<T>>): Predicate<T> {
  return {
    create: funcs.create ?? yes,
    update: funcs.update ?? yes,
    delete: funcs.delete ?? yes,
    generic: funcs.generic ?? yes,
  };
}

const isMissing = (object: unknown): object is null | undefined =>
  object === undefined || object === null;

/**
 * A predicate that lets through the events whose object passes `filter`; for updates, the
 * new object (controller-runtime's `predicate.NewPredicateFuncs`). An event whose object is
 * missing (`undefined` or `null`) does not pass, and `filter` is not called with it.
 */
export function objectPredicate<T>(filter: (object: T) => boolean): Predicate<T> {
  if (typeof filter !== 'function') {
    throw new TypeError('objectPredicate(filter): filter must be a function');
  }
  const passes = (object: T): boolean => !isMissing(object) && filter(object);
  return {
    create: (e) => passes(e.object),
    update: (e) => passes(e.objectNew),
    delete: (e) => passes(e.object),
    generic: (e) => passes(e.object),
  };
}

// Updates pass when `changed` says so; an update missing either object does not (there is
// nothing to compare), every other event does.
function onUpdateOnly(
  changed: (oldObj: HasObjectMeta, newObj: HasObjectMeta) => boolean,
): Predicate<HasObjectMeta> {
  return predicateFuncs<HasObjectMeta>({
    update: (e) =>
      !isMissing(e.objectOld) && !isMissing(e.objectNew) && changed(e.objectOld, e.objectNew),
  });
}

/**
 * Lets updates through only when `metadata.generation` changed, i.e. the spec changed, not
 * just the status or metadata (controller-runtime's `GenerationChangedPredicate`). Other
 * events pass. Resources without a generation (ConfigMaps, ...) never pass updates.
 */
export const generationChanged: Predicate<HasObjectMeta> = onUpdateOnly(
  (o, n) => o.metadata?.generation !== n.metadata?.generation,
);

/** Lets updates through only when the labels changed (`LabelChangedPredicate`). */
export const labelsChanged: Predicate<HasObjectMeta> = onUpdateOnly(
  (o, n) => !sameMap(o.metadata?.labels, n.metadata?.labels),
);

/** Lets updates through only when the annotations changed (`AnnotationChangedPredicate`). */
export const annotationsChanged: Predicate<HasObjectMeta> = onUpdateOnly(
  (o, n) => !sameMap(o.metadata?.annotations, n.metadata?.annotations),
);

/**
 * Lets updates through only when the resourceVersion changed, dropping the re-deliveries
 * of periodic resyncs (`ResourceVersionChangedPredicate`).
 */
export const resourceVersionChanged: Predicate<HasObjectMeta> = onUpdateOnly(
  (o, n) => o.metadata?.resourceVersion !== n.metadata?.resourceVersion,
);

/**
 * Lets through the events whose object's labels match `selector`: a string
 * (`app=web,tier!=db`), a parsed selector, or a `metav1.LabelSelector`
 * (`{ matchLabels, matchExpressions }`); for updates, the new object (controller-runtime's
 * `LabelSelectorPredicate`). An event whose object is missing does not pass.
 *
 * @throws {Error} for a selector that does not parse or is not valid, naming the problem.
 */
export function labelSelectorPredicate(
  selector: string | Selector | LabelSelector,
): Predicate<HasObjectMeta> {
  const parsed =
    typeof selector === 'string'
      ? parseSelector(selector)
      : typeof (selector as Partial<Selector>)?.matches === 'function'
        ? (selector as Selector)
        : labelSelectorAsSelector(selector as LabelSelector);
  return objectPredicate((object: HasObjectMeta) => parsed.matches(object.metadata?.labels ?? {}));
}

/**
 * Passes an event when every predicate does (true for none); asks them in order and stops
 * at the first that rejects it.
 */
export function and<T>(...predicates: Predicate<T>[]): Predicate<T> {
  return combine(predicates, (ask) => predicates.every(ask));
}

/**
 * Passes an event when at least one predicate does (false for none); asks them in order and
 * stops at the first that passes it.
 */
export function or<T>(...predicates: Predicate<T>[]): Predicate<T> {
  return combine(predicates, (ask) => predicates.some(ask));
}

/** Passes the events `predicate` rejects. */
export function not<T>(predicate: Predicate<T>): Predicate<T> {
  return {
    create: (e) => !predicate.create(e),
    update: (e) => !predicate.update(e),
    delete: (e) => !predicate.delete(e),
    generic: (e) => !predicate.generic(e),
  };
}

function combine<T>(
  predicates: Predicate<T>[],
  join: (ask: (p: Predicate<T>) => boolean) => boolean,
): Predicate<T> {
  for (const [i, p] of predicates.entries()) checkPredicate(p, `predicate ${i}`);
  return {
    create: (e) => join((p) => p.create(e)),
    update: (e) => join((p) => p.update(e)),
    delete: (e) => join((p) => p.delete(e)),
    generic: (e) => join((p) => p.generic(e)),
  };
}

/**
 * @internal Throws a TypeError naming `what` unless `predicate` has the four functions.
 */
export function checkPredicate(predicate: unknown, what: string): void {
  const p = predicate as Partial<Predicate<unknown>> | null | undefined;
  const missing = (['create', 'update', 'delete', 'generic'] as const).filter(
    (k) => typeof p?.[k] !== 'function',
  );
  if (missing.length > 0) {
    throw new TypeError(
      `${what} is not a predicate: it has no ${missing.join(', ')} function (use predicateFuncs to fill in the others)`,
    );
  }
}

function sameMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  return ka.length === kb.length && ka.every((k) => a?.[k] === b?.[k]);
}
