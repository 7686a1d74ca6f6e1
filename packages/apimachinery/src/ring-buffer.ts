/**
 * An unbounded FIFO on a growable circular array (k8s.io/utils/buffer's `RingGrowing`): the
 * one queue under every `@kubets` queue — the work queue, the DeltaFIFO's keys, a shared
 * informer's per-handler notifications, a watch stream's decoded events.
 *
 * - `push` and `shift` are O(1) and allocate nothing per item; only growth (doubling the
 *   capacity) copies, so a queue that stays short never allocates after construction.
 *   `Array.prototype.shift` instead copies the whole array on every call once it is long.
 * - A shifted slot is cleared at once, so the buffer never keeps a taken item alive.
 * - The capacity never shrinks, except on {@link RingBuffer.clear}: a burst's memory is kept
 *   for the next burst.
 *
 * ```ts
 * const queue = new RingBuffer<string>();
 * queue.push('default/web');
 * queue.shift(); // 'default/web'
 * ```
 */
export class RingBuffer<T> implements Iterable<T> {
  #items: (T | undefined)[];
  #head = 0;
  #length = 0;
  readonly #initialCapacity: number;

  /**
   * @param initialCapacity - Slots to allocate up front, rounded up to a power of two (so a
   *   slot index is a mask, not a division); default 16.
   */
  constructor(initialCapacity = 16) {
    let capacity = 1;
    while (capacity < initialCapacity) capacity <<= 1;
    this.#initialCapacity = capacity;
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

  /** Drops every item and gives back the memory of past growth. */
  clear(): void {
    this.#items = new Array<T | undefined>(this.#initialCapacity);
    this.#head = 0;
    this.#length = 0;
  }

  /** The items from head to tail, without removing them. Do not push or shift meanwhile. */
  *[Symbol.iterator](): Iterator<T> {
    const mask = this.#items.length - 1;
    for (let i = 0; i < this.#length; i++) yield this.#items[(this.#head + i) & mask] as T;
  }

  /** A copy of the items, head first. */
  toArray(): T[] {
    const out = new Array<T>(this.#length);
    const mask = this.#items.length - 1;
    for (let i = 0; i < this.#length; i++) out[i] = this.#items[(this.#head + i) & mask] as T;
    return out;
  }

  #grow(): void {
    const old = this.#items;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.#length; i++) next[i] = old[(this.#head + i) & (old.length - 1)];
    this.#items = next;
    this.#head = 0;
  }
}
