/**
 * client-go's environment variable that turns on its cache mutation detector
 * (`KUBE_CACHE_MUTATION_DETECTOR`); read when an informer is created.
 */
export const cacheMutationDetectorEnv = 'KUBE_CACHE_MUTATION_DETECTOR';

// The default for informers that do not say, set by test environments; on globalThis under a
// registry symbol, so that every copy of this package (and each of its entry points) shares it.
const defaultKey = Symbol.for('kubets.cache.mutationDetectorDefault');

interface MutationDetectorGlobal {
  [defaultKey]?: boolean;
}

/**
 * Whether informers created now freeze what they cache (see
 * `SharedIndexInformerOptions.detectMutations`): as the environment variable
 * `KUBE_CACHE_MUTATION_DETECTOR` says when it holds a boolean (Go's `strconv.ParseBool`
 * spellings), else as `setCacheMutationDetectorDefault` (`@kubets/cache/testing`) set it (off unless set).
 */
export function isCacheMutationDetectorEnabled(): boolean {
  const value = typeof process === 'undefined' ? undefined : process.env[cacheMutationDetectorEnv];
  if (value !== undefined && trueValues.has(value)) return true;
  if (value !== undefined && falseValues.has(value)) return false;
  return (globalThis as MutationDetectorGlobal)[defaultKey] === true;
}

/**
 * Sets whether informers created from now on detect mutations of cached objects when neither
 * their options nor `KUBE_CACHE_MUTATION_DETECTOR` say: test environments turn it on, so
 * that a test mutating a cached object fails at the line that does it. Returns the previous
 * default.
 */
export function setCacheMutationDetectorDefault(enabled: boolean): boolean {
  const global = globalThis as MutationDetectorGlobal;
  const previous = global[defaultKey] === true;
  global[defaultKey] = enabled;
  return previous;
}

const trueValues: ReadonlySet<string> = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const falseValues: ReadonlySet<string> = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/**
 * Freezes `value` and everything reachable from it, so that an assignment to any of it
 * throws (ES modules are strict). A value frozen already is taken as frozen throughout, as
 * the trees of a `FieldsV1Pool` and the objects frozen here are.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}

/**
 * `transform` followed by {@link deepFreeze} when `detectMutations`: the transformer of an
 * informer's queue, so that every object enters the cache frozen.
 */
export function freezingTransform<T>(
  transform: ((obj: T) => T) | undefined,
  detectMutations: boolean,
): ((obj: T) => T) | undefined {
  if (!detectMutations) return transform;
  if (transform === undefined) return deepFreeze;
  return (obj) => deepFreeze(transform(obj));
}
