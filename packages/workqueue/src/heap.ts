/** An entry of a {@link MinHeap}: ordered by `readyAt`, then by `seq` (insertion order). */
export interface HeapEntry {
  readyAt: number;
  readonly seq: number;
  /** The entry's position in the heap's array, kept up to date by the heap. */
  index: number;
}

/**
 * A binary min-heap that tracks each entry's position, so an entry's key can be lowered in
 * O(log n) (the delaying queue moves a duplicate item to the earlier ready time).
 * @internal
 */
export class MinHeap<E extends HeapEntry> {
  readonly #items: E[] = [];

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
  decrease(entry: E, readyAt: number): void {
    entry.readyAt = readyAt;
    this.#up(entry.index);
  }

  clear(): void {
    for (const e of this.#items) e.index = -1;
    this.#items.length = 0;
  }

  #less(a: E, b: E): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
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
