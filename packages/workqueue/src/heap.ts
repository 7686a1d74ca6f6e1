/** An entry of a {@link MinHeap}: the heap keeps its position up to date. */
export interface Positioned {
  /** The entry's position in the heap's array; -1 while it is in no heap. */
  index: number;
}

/** An entry of the default {@link MinHeap}: ordered by `readyAt`, then by `seq` (insertion order). */
export interface HeapEntry extends Positioned {
  readyAt: number;
  readonly seq: number;
}

/** Earlier ready time first; at the same time, the entry pushed first. */
function byReadyTime(a: HeapEntry, b: HeapEntry): boolean {
  return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
}

/**
 * A binary min-heap that tracks each entry's position, so an entry can be moved or removed
 * in O(log n) (the delaying queue moves a duplicate item to the earlier ready time, the
 * priority queue raises an item's priority). Ordered by `less`; by ready time by default.
 * @internal
 */
export class MinHeap<E extends Positioned> {
  readonly #items: E[] = [];
  readonly #less: (a: E, b: E) => boolean;

  /** @param less - whether `a` comes out before `b`; by ready time when omitted (`E` must then be a {@link HeapEntry}). */
  constructor(less?: (a: E, b: E) => boolean) {
    this.#less = less ?? (byReadyTime as unknown as (a: E, b: E) => boolean);
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): E | undefined {
    return this.#items[0];
  }

  push(entry: E): void {
    entry.index = this.#items.length;
    this.#items.push(entry);
    this.#up(entry.index);
  }

  pop(): E | undefined {
    const items = this.#items;
    const top = items[0];
    if (top === undefined) return undefined;
    const last = items.pop() as E;
    if (items.length > 0) {
      items[0] = last;
      last.index = 0;
      this.#down(0);
    }
    top.index = -1;
    return top;
  }

  /** Moves `entry` (which must be in this heap) to a lower `readyAt`. */
  decrease(entry: E & HeapEntry, readyAt: number): void {
    entry.readyAt = readyAt;
    this.#up(entry.index);
  }

  /** Puts `entry` (which must be in this heap) back in place after its order keys changed. */
  fix(entry: E): void {
    this.#up(entry.index);
    this.#down(entry.index);
  }

  /** Takes `entry` (which must be in this heap) out of it. */
  remove(entry: E): void {
    const items = this.#items;
    const i = entry.index;
    const last = items.pop() as E;
    entry.index = -1;
    if (last === entry) return;
    items[i] = last;
    last.index = i;
    this.fix(last);
  }

  clear(): void {
    for (const e of this.#items) e.index = -1;
    this.#items.length = 0;
  }

  #swap(i: number, j: number): void {
    const items = this.#items;
    const a = items[i] as E;
    const b = items[j] as E;
    items[i] = b;
    items[j] = a;
    b.index = i;
    a.index = j;
  }

  #up(i: number): void {
    const items = this.#items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(items[i] as E, items[parent] as E)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const items = this.#items;
    const n = items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let child = l;
      if (r < n && this.#less(items[r] as E, items[l] as E)) child = r;
      if (!this.#less(items[child] as E, items[i] as E)) break;
      this.#swap(i, child);
      i = child;
    }
  }
}
