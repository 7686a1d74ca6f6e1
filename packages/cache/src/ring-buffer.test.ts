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
