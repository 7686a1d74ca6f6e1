import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ring-buffer.js';

describe('RingBuffer', () => {
  it('is FIFO across growth and wrap-around', () => {
    const rb = new RingBuffer<number>(2);
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 7; i++) rb.push(next++);
      for (let i = 0; i < 5; i++) out.push(rb.shift()!);
    }
    while (rb.length > 0) out.push(rb.shift()!);
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
    expect(rb.shift()).toBeUndefined();
    expect(rb.peek()).toBeUndefined();
  });

  it('peeks and clears', () => {
    const rb = new RingBuffer<string>();
    rb.push('a');
    rb.push('b');
    expect(rb.peek()).toBe('a');
    rb.clear();
    expect(rb.length).toBe(0);
  });
});

describe('RingBuffer iteration', () => {
  it('lists head to tail after wrap-around, without taking anything', () => {
    const rb = new RingBuffer<number>(4);
    for (let i = 0; i < 4; i++) rb.push(i);
    rb.shift();
    rb.shift();
    rb.push(4);
    rb.push(5);
    expect([...rb]).toEqual([2, 3, 4, 5]);
    expect(rb.toArray()).toEqual([2, 3, 4, 5]);
    expect(rb.length).toBe(4);
    rb.push(6); // grows while wrapped
    expect(rb.toArray()).toEqual([2, 3, 4, 5, 6]);
    expect(new RingBuffer<number>().toArray()).toEqual([]);
  });
});
