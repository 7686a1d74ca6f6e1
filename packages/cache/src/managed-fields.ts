// Every object the API server returns carries `metadata.managedFields`: one entry per field
// manager, each with a `fieldsV1` tree naming the fields that manager owns. In a 1.20 Pod
// those trees are more than half of the object's heap, yet they are the same tree for every
// replica of a workload (the keys name fields and list-item keys such as container names,
// not values). Informers keep objects for a long time, so sharing identical trees between
// cached objects saves most of that memory. Every watch event brings a fresh copy of its
// object's trees, so the cost per object matters as much as the saving: a watched tree whose
// text is the text of a recently pooled tree is cut out of the event's text before it is
// parsed (it is neither parsed nor compared); any other tree is compared with the trees its
// manager wrote last (no allocation, about a quarter of the cost of serialising it), and only
// serialised to find its pooled twin when that fails.

import type { WatchEventTextRewrite } from '@kubets/rest';
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
/** How many recently used trees, of any manager, are looked for in an event's text. */
const recentTreesToSplice = 16;

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

/**
 * True when `tree` is plain objects all the way down, as every real `fieldsV1` tree is (its
 * leaves are `{}`): then `JSON.parse` of its JSON text makes an equal tree. A number need not
 * (`1e400` is pooled under the text `null`, `-0` under `0`), nor a value with a `toJSON`.
 */
function isPlainTree(tree: unknown): boolean {
  if (tree === null || typeof tree !== 'object' || Object.getPrototypeOf(tree) !== Object.prototype)
    return false;
  for (const key in tree) {
    if (!Object.hasOwn(tree, key) || !isPlainTree((tree as Record<string, unknown>)[key])) {
      return false;
    }
  }
  return true;
}

/** A pooled tree a manager was seen with, and the JSON text it is pooled under. */
interface RecentTree {
  readonly tree: WeakRef<object>;
  readonly text: string;
  /** Whether the text may stand for the tree in an event's text (see {@link isPlainTree}). */
  readonly spliceable: boolean;
}

// How a `fieldsV1` key is written in JSON without escapes or whitespace, and its length.
const quotedFieldsV1 = '"fieldsV1"';
const colon = 0x3a;
const comma = 0x2c;
const openingBrace = 0x7b;
const closingBrace = 0x7d;
// The key is found by its end, whose first character is rare in JSON, then checked whole:
// a search for a text that starts with `"` stops at every quote of the object.
const keyEnd = 'V1"';
const keyStart = '"fields';
// What a spliced tree is replaced by in the text to parse. A number is never a tree, so an
// entry that holds it after parsing either held a spliced tree or held the number itself.
const splicedMarker = 0;
const splicedMarkerText = String(splicedMarker);

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
  // The spliceable trees used last, whatever their manager, most recent first.
  readonly #toSplice: RecentTree[] = [];
  readonly #forget = new FinalizationRegistry<string>((text) => {
    if (this.#trees.get(text)?.deref() === undefined) this.#trees.delete(text);
  });

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
   * Cuts the `fieldsV1` trees this pool used recently out of `text`, the JSON of one object
   * alone or inside a watch event, so that they are not parsed: the hook for a watch's
   * `rewriteEventText` hint. Returns `undefined` when nothing was cut; otherwise the text to
   * parse, in which each cut tree is the number 0, and the step that takes the object parsed
   * from it and puts the pooled trees in, returning the object or `undefined` when the text
   * misled the cut (the caller then parses `text` itself).
   *
   * A tree is cut where the text `"fieldsV1":` is followed by exactly the text of a recently
   * used tree and then by `,` or `}` (so the 0 is all of the value, as the tree was). The
   * object delivered equals `JSON.parse(text)`'s, because the cut is trusted only where it
   * is proven: `text` holds no `\u` escape (which could spell a key `fieldsV1` in other
   * letters), so every `fieldsV1` key an entry of the parsed object owns is an occurrence of
   * the text `"fieldsV1"`; there are exactly as many occurrences (outside the cut trees) as
   * such entries, so the occurrences are those keys, entry by entry in order, and no other
   * key, label or field of that name was cut; and the entries holding 0 are exactly as many
   * as the cut trees, so none held 0 of its own. A tree is cut only when it is plain objects
   * all the way down, so that parsing its text would give an equal tree.
   */
  rewriteEventText<T>(text: string): WatchEventTextRewrite<T> | undefined {
    const candidates = this.#toSplice;
    if (candidates.length === 0) return undefined;
    let at = nextFieldsV1(text, 0);
    if (at === -1 || text.includes('\\u')) return undefined;
    let occurrences = 0;
    const spliced: object[] = [];
    let rewritten = '';
    let copied = 0;
    while (at !== -1) {
      occurrences++;
      const from = at + quotedFieldsV1.length + 1;
      let next = from - 1;
      if (text.charCodeAt(from - 1) === colon && text.charCodeAt(from) === openingBrace) {
        for (let i = 0; i < candidates.length; i++) {
          const candidate = candidates[i]!;
          const end = from + candidate.text.length;
          const after = text.charCodeAt(end);
          if (after !== comma && after !== closingBrace) continue;
          // A slice and `===` compare in bulk; `startsWith` goes character by character.
          if (text.slice(from, end) !== candidate.text) continue;
          const tree = candidate.tree.deref();
          if (tree === undefined) {
            candidates.splice(i--, 1);
            continue;
          }
          moveUp(candidates, i);
          rewritten += text.slice(copied, from) + splicedMarkerText;
          copied = end;
          next = end;
          spliced.push(tree);
          break;
        }
      }
      at = nextFieldsV1(text, next);
    }
    if (spliced.length === 0) return undefined;
    return {
      text: rewritten + text.slice(copied),
      finish: (object) => (putBack(object, spliced, occurrences) ? object : undefined),
    };
  }

  /** The pooled tree among `recent` equal to `tree`, moved to the front; else undefined. */
  #findRecent(recent: RecentTree[], tree: object): object | undefined {
    for (let i = 0; i < recent.length; i++) {
      const candidate = recent[i]!;
      const pooled = candidate.tree.deref();
      if (pooled === undefined || !sameTree(tree, pooled)) continue;
      if (i > 0) recent.unshift(...recent.splice(i, 1));
      this.#useToSplice(candidate);
      return pooled;
    }
    return undefined;
  }

  #remember(manager: string, recent: RecentTree[] | undefined, tree: object, text: string): void {
    const remembered = { tree: new WeakRef(tree), text, spliceable: isPlainTree(tree) };
    this.#useToSplice(remembered);
    if (recent === undefined) {
      if (this.#recent.size >= maxRecentManagers) this.#recent.clear();
      this.#recent.set(manager, [remembered]);
      return;
    }
    recent.unshift(remembered);
    if (recent.length > recentTreesPerManager) recent.length = recentTreesPerManager;
  }

  /**
   * Counts a use of `used` among the trees to splice, if its text may stand for it: one that
   * is there moves up a place, one that is not comes first (and the last one goes).
   */
  #useToSplice(used: RecentTree): void {
    if (!used.spliceable) return;
    const candidates = this.#toSplice;
    const at = candidates.indexOf(used);
    if (at !== -1) {
      moveUp(candidates, at);
      return;
    }
    // Another manager's record of the same tree: one of them is enough.
    const twin = candidates.findIndex((candidate) => candidate.text === used.text);
    if (twin !== -1) candidates.splice(twin, 1);
    candidates.unshift(used);
    if (candidates.length > recentTreesToSplice) candidates.length = recentTreesToSplice;
  }
}

/**
 * Swaps `list[at]` with the one before it: what is used often rises to the front, without
 * the allocations of moving it there at once.
 */
function moveUp<T>(list: T[], at: number): void {
  if (at === 0) return;
  const used = list[at]!;
  list[at] = list[at - 1]!;
  list[at - 1] = used;
}

/**
 * Puts `trees`, cut out of the text `object` was parsed from, back into its entries in
 * place of the marker: true when the text was what {@link FieldsV1Pool.rewriteEventText}
 * took it for, that is, when `occurrences` (of `"fieldsV1"` in that text) is the number of
 * entries that own a `fieldsV1` key and exactly `trees.length` of them hold the marker.
 */
function putBack(object: unknown, trees: readonly object[], occurrences: number): boolean {
  const entries = (object as WithManagedFields | null | undefined)?.metadata?.managedFields;
  if (!Array.isArray(entries)) return false;
  let owners = 0;
  let next = 0;
  for (const entry of entries) {
    if (entry === null || typeof entry !== 'object' || !Object.hasOwn(entry, 'fieldsV1')) {
      continue;
    }
    owners++;
    // Past the last tree (an entry that held 0 of its own) this reads undefined; the count
    // below refuses the object then.
    if (entry.fieldsV1 === splicedMarker) entry.fieldsV1 = trees[next++];
  }
  return owners === occurrences && next === trees.length;
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
