import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { signalHandler } from './index.js';

describe('signalHandler', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'aborts on the first %s and exits 1 on the second signal',
    (first) => {
      const proc = new EventEmitter();
      const exits: number[] = [];
      const signal = signalHandler({ process: proc, exit: (code) => exits.push(code) });
      expect(signal.aborted).toBe(false);
      proc.emit(first);
      expect(signal.aborted).toBe(true);
      expect(String(signal.reason)).toContain('received a termination signal');
      expect(exits).toEqual([]);
      proc.emit('SIGTERM');
      expect(exits).toEqual([1]);
    },
  );
});
