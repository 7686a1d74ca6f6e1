// Every object the API server returns carries `metadata.managedFields`: one entry per field
// manager, each with a `fieldsV1` tree naming the fields that manager owns. In a 1.20 Pod
// those trees are more than half of the object's heap, yet they are the same tree for every
// replica of a workload (the keys name fields and list-item keys such as container names,
// not values). Informers keep objects for a long time, so sharing identical trees between
// cached objects saves most of that memory. Every watch event brings a fresh copy of its
// object's trees, so the cost per object matters as much as the saving: a tree is first
// compared with the trees its manager wrote last (no allocation, about a quarter of the
// cost of serialising it), and only serialised to find its pooled twin when that fails.

import { deepFreeze } from './mutation-detector.js';

interface ManagedFieldsEntryLike {
  manager?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
}

interface WithManagedFields {
  metadata?: { managedFields?: ManagedFieldsEntryLike[] | null } | null;
}

/** How many recently pooled trees per manager are compared before serialising a tree. */
const recentTreesPerManager = 4;
/** Beyond this many managers the recent trees are forgotten, so odd manager names cannot grow it. */
const maxRecentManagers = 256;

/**
 * True when `a` and `b` hold the same keys with equal values: the test for sharing a tree.
 * Key order is not compared: a `fieldsV1` tree is a set of fields, whatever order it came
 * in. A `__proto__` key (which `JSON.parse` makes an own property) is never judged here.
 */
function sameTree(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    // An inherited name (`toString`) reads as a function, never equal to a JSON value.
    if (key === '__proto__' || !sameTree(left[key], right[key])) return false;
    keys++;
  }
  for (const _ in right) if (--keys < 0) return false;
  return keys === 0;
}

/** A pooled tree a manager was seen with, and the JSON text it is pooled under. */
interface RecentTree {
  readonly tree: WeakRef<object>;
  readonly text: string;
}

// How a `fieldsV1` key is written in JSON without escapes or whitespace, and its length.
const quotedFieldsV1 = '"fieldsV1"';
const fieldsV1KeyLength = quotedFieldsV1.length + 1; // and the colon
const colon = 0x3a;
// The key is found by its end, whose first character is rare in JSON, then checked whole:
// a search for a text that starts with `"` stops at every quote of the object.
const keyEnd = 'V1"';
const keyStart = '"fields';

/** Where `"fieldsV1"` next occurs in `text` from `from`, or -1. */
function nextFieldsV1(text: string, from: number): number {
  for (let at = text.indexOf(keyEnd, from + keyStart.length); at !== -1; ) {
    if (text.startsWith(keyStart, at - keyStart.length)) return at - keyStart.length;
    at = text.indexOf(keyEnd, at + 1);
  }
  return -1;
}

/**
 * Shares identical `fieldsV1` trees between objects: {@link FieldsV1Pool.share} replaces an
 * entry's tree with an equal tree already in the pool. Pooled trees are frozen, because
 * one tree then belongs to many objects; like client-go's caches, objects handed out by an
 * informer are read-only (copy one with `structuredClone` before changing it). The pool
 * holds its trees weakly: a tree no cached object uses any more is collected.
 */
export class FieldsV1Pool {
  readonly #trees = new Map<string, WeakRef<object>>();
  // manager → the pooled trees it was last seen with, most recent first.
  readonly #recent = new Map<string, RecentTree[]>();
  readonly #forget = new FinalizationRegistry<string>((text) => {
    if (this.#trees.get(text)?.deref() === undefined) this.#trees.delete(text);
  });
  // Where each entry's `"fieldsV1"` key is in the text shareFromText reads; reused.
  readonly #keyOffsets: number[] = [];

  /** Number of distinct trees currently pooled (collected ones may linger until swept). */
  get size(): number {
    return this.#trees.size;
  }

  /**
   * Points every `metadata.managedFields[].fieldsV1` of `obj` at the pooled equal tree
   * (adding the tree to the pool when it is new). Mutates and returns `obj`; objects
   * without managedFields are returned as they are.
   */
  share<T>(obj: T): T {
    const entries = (obj as WithManagedFields | null | undefined)?.metadata?.managedFields;
    if (!Array.isArray(entries)) return obj;
    for (const entry of entries) {
      const tree = entry?.fieldsV1;
      if (tree === null || typeof tree !== 'object') continue;
      const manager = typeof entry.manager === 'string' ? entry.manager : '';
      const recent = this.#recent.get(manager);
      const known = recent === undefined ? undefined : this.#findRecent(recent, tree);
      if (known !== undefined) {
        entry.fieldsV1 = known;
        continue;
      }
      // The API server writes a tree's keys in a canonical order, so equal trees serialise
      // to equal text.
      const text = JSON.stringify(tree);
      let pooled = this.#trees.get(text)?.deref();
      if (pooled !== undefined) {
        entry.fieldsV1 = pooled;
      } else {
        deepFreeze(tree);
        pooled = tree;
        this.#trees.set(text, new WeakRef(tree));
        this.#forget.register(tree, text);
      }
      this.#remember(manager, recent, pooled, text);
    }
    return obj;
  }

  /**
   * Like {@link FieldsV1Pool.share}, but only for trees whose JSON text in `text` (the JSON
   * `obj` was parsed from, alone or inside a watch event) is the text of a tree its manager
   * was recently seen with: comparing text costs far less than comparing the parsed trees.
   * Other trees are left as they are, for `share`. Mutates and returns `obj`.
   *
   * The text is trusted only where it cannot mislead: it holds no `\u` escape (which could
   * spell a key `fieldsV1` in other letters), and the text `"fieldsV1"` occurs in it exactly
   * once per entry of `obj`'s managedFields that has that key, so the occurrences are those
   * keys, in the entries' order. A pooled tree's text is a complete JSON object, so when it
   * follows a key's colon, it is all of that key's value.
   */
  shareFromText<T>(obj: T, text: string): T {
    const entries = (obj as WithManagedFields | null | undefined)?.metadata?.managedFields;
    if (!Array.isArray(entries) || entries.length === 0 || text.includes('\\u')) return obj;
    const offsets = this.#keyOffsets;
    offsets.length = 0;
    let at = nextFieldsV1(text, 0);
    for (const entry of entries) {
      if (entry === null || typeof entry !== 'object' || !Object.hasOwn(entry, 'fieldsV1'))
        continue;
      if (at === -1) return obj;
      offsets.push(at);
      at = nextFieldsV1(text, at + quotedFieldsV1.length);
    }
    if (at !== -1) return obj;
    let next = 0;
    for (const entry of entries) {
      if (entry === null || typeof entry !== 'object' || !Object.hasOwn(entry, 'fieldsV1'))
        continue;
      const keyAt = offsets[next++]!;
      const tree = entry.fieldsV1;
      if (tree === null || typeof tree !== 'object') continue;
      if (text.charCodeAt(keyAt + quotedFieldsV1.length) !== colon) continue;
      const recent = this.#recent.get(typeof entry.manager === 'string' ? entry.manager : '');
      if (recent === undefined) continue;
      for (let i = 0; i < recent.length; i++) {
        const candidate = recent[i]!;
        // A slice and `===` compare in bulk; `startsWith` goes character by character.
        const from = keyAt + fieldsV1KeyLength;
        if (text.slice(from, from + candidate.text.length) !== candidate.text) continue;
        const pooled = candidate.tree.deref();
        if (pooled === undefined) break;
        entry.fieldsV1 = pooled;
        if (i > 0) recent.unshift(...recent.splice(i, 1));
        break;
      }
    }
    return obj;
  }

  /** The pooled tree among `recent` equal to `tree`, moved to the front; else undefined. */
  #findRecent(recent: RecentTree[], tree: object): object | undefined {
    for (let i = 0; i < recent.length; i++) {
      const candidate = recent[i]!.tree.deref();
      if (candidate === undefined || !sameTree(tree, candidate)) continue;
      if (i > 0) recent.unshift(...recent.splice(i, 1));
      return candidate;
    }
    return undefined;
  }

  #remember(manager: string, recent: RecentTree[] | undefined, tree: object, text: string): void {
    const remembered = { tree: new WeakRef(tree), text };
    if (recent === undefined) {
      if (this.#recent.size >= maxRecentManagers) this.#recent.clear();
      this.#recent.set(manager, [remembered]);
      return;
    }
    recent.unshift(remembered);
    if (recent.length > recentTreesPerManager) recent.length = recentTreesPerManager;
  }
}

/** The pool informers share by default, so equal trees are shared across informers too. */
export const defaultFieldsV1Pool: FieldsV1Pool = new FieldsV1Pool();

/**
 * A transform (for `setTransform` or `transform` options) that shares identical
 * `managedFields` trees through {@link defaultFieldsV1Pool}. Shared informers apply it by
 * default (see `shareManagedFields`); use it directly with `newInformer`/`newIndexerInformer`.
 */
export function shareManagedFields<T>(obj: T): T {
  return defaultFieldsV1Pool.share(obj);
}

/**
 * A transform that removes `metadata.managedFields`, for caches that never read them (most
 * controllers). It saves more memory than sharing, at the price of the field ownership
 * information that server-side-apply tooling needs. Mutates and returns `obj`.
 */
export function dropManagedFields<T>(obj: T): T {
  const metadata = (obj as WithManagedFields | null | undefined)?.metadata;
  if (metadata?.managedFields != null) metadata.managedFields = undefined;
  return obj;
}
