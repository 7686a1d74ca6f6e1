/**
 * An unbounded FIFO on a growable circular array: O(1) push and shift, no per-item
 * allocation beyond the items themselves, and no `Array.prototype.shift` copying.
 */
export class RingBuffer<T> {
  #items: (T | undefined)[];
  #head = 0;
  #length = 0;

  constructor(initialCapacity = 16) {
    let capacity = 1;
    while (capacity < initialCapacity) capacity <<= 1;
    this.#items = new Array<T | undefined>(capacity);
  }

  /** Number of items held. */
  get length(): number {
    return this.#length;
  }

  /** Appends `item` at the tail, growing the buffer when it is full. */
  push(item: T): void {
    if (this.#length === this.#items.length) this.#grow();
    this.#items[(this.#head + this.#length) & (this.#items.length - 1)] = item;
    this.#length++;
  }

  /** Removes and returns the head, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.#length === 0) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head = (this.#head + 1) & (this.#items.length - 1);
    this.#length--;
    return item;
  }

  /** The head without removing it, or `undefined` when empty. */
  peek(): T | undefined {
    return this.#length === 0 ? undefined : this.#items[this.#head];
  }

  /** Drops every item. */
  clear(): void {
    this.#items = new Array<T | undefined>(16);
    this.#head = 0;
    this.#length = 0;
  }

  #grow(): void {
    const old = this.#items;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.#length; i++) next[i] = old[(this.#head + i) & (old.length - 1)];
    this.#items = next;
    this.#head = 0;
  }
}
