import { rejectionOf, thrownBy } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import { ChannelSource, handlerFuncs } from './index.js';

describe('ChannelSource', () => {
  it('keeps what is emitted before the first subscriber for it, then hands every event to every subscriber', () => {
    const source = new ChannelSource<string>();
    source.emit('early');
    const first: string[] = [];
    const second: string[] = [];
    source.subscribe((e) => first.push(e.object));
    source.subscribe((e) => second.push(e.object));
    source.emit('late');
    expect(first).toEqual(['early', 'late']);
    expect(second).toEqual(['late']);
  });

  it('stops handing events to a subscriber that unsubscribed', () => {
    const source = new ChannelSource<number>();
    const seen: number[] = [];
    const stop = source.subscribe((e) => seen.push(e.object));
    source.emit(1);
    stop();
    source.emit(2);
    expect(seen).toEqual([1]);
  });

  it('emitFrom emits what an async iterable yields, in order, and rejects with what it threw', async () => {
    const source = new ChannelSource<number>();
    const seen: number[] = [];
    source.subscribe((e) => seen.push(e.object));
    async function* failing() {
      yield 1;
      yield 2;
      throw new Error('the feed broke');
    }
    const err = await rejectionOf(source.emitFrom(failing()));
    expect(seen).toEqual([1, 2]);
    expect(String(err)).toContain('the feed broke');
  });

  it('refuses a listener that is not a function', () => {
    expect(String(thrownBy(() => new ChannelSource().subscribe(undefined as never)))).toContain(
      'listener must be a function',
    );
  });
});

describe('handlerFuncs', () => {
  it('refuses an event function that is not a function, naming it', () => {
    expect(String(thrownBy(() => handlerFuncs({ update: 'no' as never })))).toContain(
      'handlerFuncs(...): update must be a function, got string',
    );
  });
});
