import { describe, expect, it } from 'vitest';
import { type HeapEntry, MinHeap, type Positioned } from './heap.js';

interface Entry extends HeapEntry {
  name: string;
}

let seq = 0;
function entry(name: string, readyAt: number): Entry {
  return { name, readyAt, seq: seq++, index: -1 };
}

function drain(heap: MinHeap<Entry>): string[] {
  const out: string[] = [];
  for (let e = heap.pop(); e !== undefined; e = heap.pop()) out.push(e.name);
  return out;
}

describe('MinHeap', () => {
  it('pops by ready time, ties in insertion order', () => {
    const heap = new MinHeap<Entry>();
    for (const [name, at] of [
      ['d', 40],
      ['a', 10],
      ['c1', 30],
      ['b', 20],
      ['c2', 30],
      ['e', 50],
    ] as const) {
      heap.push(entry(name, at));
    }
    expect(heap.size).toBe(6);
    expect(heap.peek()?.name).toBe('a');
    expect(drain(heap)).toEqual(['a', 'b', 'c1', 'c2', 'd', 'e']);
    expect(heap.pop()).toBeUndefined();
  });

  it('moves an entry up when its ready time decreases', () => {
    const heap = new MinHeap<Entry>();
    const entries = [entry('a', 10), entry('b', 20), entry('c', 30), entry('d', 40)];
    for (const e of entries) heap.push(e);
    heap.decrease(entries[3] as Entry, 5);
    expect(heap.peek()?.name).toBe('d');
    heap.decrease(entries[2] as Entry, 15);
    expect(drain(heap)).toEqual(['d', 'a', 'c', 'b']);
  });

  it('keeps order over many random operations', () => {
    const heap = new MinHeap<Entry>();
    const live: Entry[] = [];
    let x = 12345;
    const rand = (): number => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x / 2147483648;
    };
    for (let i = 0; i < 2000; i++) {
      const e = entry(`e${i}`, Math.floor(rand() * 1000));
      heap.push(e);
      live.push(e);
      if (rand() < 0.3) {
        const target = live[Math.floor(rand() * live.length)] as Entry;
        if (target.index >= 0) heap.decrease(target, target.readyAt - Math.floor(rand() * 100));
      }
    }
    let prev = Number.NEGATIVE_INFINITY;
    let count = 0;
    for (let e = heap.pop(); e !== undefined; e = heap.pop()) {
      expect(e.readyAt).toBeGreaterThanOrEqual(prev);
      expect(e.index).toBe(-1);
      prev = e.readyAt;
      count++;
    }
    expect(count).toBe(2000);
  });

  it('clear empties it', () => {
    const heap = new MinHeap<Entry>();
    const e = entry('a', 1);
    heap.push(e);
    heap.clear();
    expect(heap.size).toBe(0);
    expect(e.index).toBe(-1);
  });
});

describe('MinHeap with an ordering of its own', () => {
  interface Ranked extends Positioned {
    name: string;
    rank: number;
  }
  const ranked = (name: string, rank: number): Ranked => ({ name, rank, index: -1 });
  const byRank = (a: Ranked, b: Ranked): boolean => a.rank < b.rank;
  const drainRanked = (heap: MinHeap<Ranked>): string[] => {
    const out: string[] = [];
    for (let e = heap.pop(); e !== undefined; e = heap.pop()) out.push(e.name);
    return out;
  };

  it('moves an entry either way with fix once its keys changed', () => {
    const heap = new MinHeap<Ranked>(byRank);
    const entries = ['a', 'b', 'c', 'd', 'e'].map((name, i) => ranked(name, i * 10));
    for (const e of entries) heap.push(e);
    const [a, , , d] = entries as [Ranked, Ranked, Ranked, Ranked, Ranked];
    d.rank = -1;
    heap.fix(d);
    a.rank = 25;
    heap.fix(a);
    expect(drainRanked(heap)).toEqual(['d', 'b', 'c', 'a', 'e']);
  });

  it('removes any entry, the last one included, and keeps the order', () => {
    const heap = new MinHeap<Ranked>(byRank);
    const entries = Array.from({ length: 9 }, (_, i) => ranked(`e${i}`, (i * 7) % 9));
    for (const e of entries) heap.push(e);
    const removed = [entries[0], entries[4], entries[8]] as Ranked[];
    for (const e of removed) {
      heap.remove(e);
      expect(e.index).toBe(-1);
    }
    expect(heap.size).toBe(6);
    const expected = entries
      .filter((e) => !removed.includes(e))
      .sort((x, y) => x.rank - y.rank)
      .map((e) => e.name);
    expect(drainRanked(heap)).toEqual(expected);
  });
});
