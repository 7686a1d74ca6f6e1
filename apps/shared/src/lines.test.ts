import { describe, expect, it } from 'vitest';
import { LineLog } from './lines.ts';

describe('LineLog', () => {
  it('splits writes into lines per stream, keeping partial lines apart', () => {
    const log = new LineLog();
    log.write('stdout', 'Sync/Add/Update for ');
    log.write('stderr', 'I1122 12:00:00.000000    1 main.ts:1] Starting\n');
    log.write('stdout', 'Pod nginx\nPod default/mypod does not exist anymore\n');
    expect(log.lines).toEqual([
      'I1122 12:00:00.000000    1 main.ts:1] Starting',
      'Sync/Add/Update for Pod nginx',
      'Pod default/mypod does not exist anymore',
    ]);
  });

  it('resolves a wait at once for a line already printed, and later for a new one', async () => {
    const log = new LineLog();
    log.push('add a deployment: nginx');
    await expect(log.waitFor('add a deployment: nginx')).resolves.toBe('add a deployment: nginx');
    const since = log.mark();
    const pending = log.waitFor(/^update deployment: nginx nginx$/, { since });
    log.push('update deployment: web web');
    log.push('update deployment: nginx nginx');
    await expect(pending).resolves.toBe('update deployment: nginx nginx');
  });

  it('only counts lines from `since` on', async () => {
    const log = new LineLog();
    log.push('Sync/Add/Update for Pod nginx');
    const since = log.mark();
    let resolved = false;
    const pending = log.waitFor('Sync/Add/Update for Pod nginx', { since }).then((line) => {
      resolved = true;
      return line;
    });
    await Promise.resolve();
    expect(resolved).toBe(false);
    log.push('Sync/Add/Update for Pod nginx');
    await expect(pending).resolves.toBe('Sync/Add/Update for Pod nginx');
    expect(log.count('Sync/Add/Update for Pod nginx')).toBe(2);
    expect(log.count('Sync/Add/Update for Pod nginx', since)).toBe(1);
    expect(log.matching(/nginx/, 1)).toEqual(['Sync/Add/Update for Pod nginx']);
    expect(log.indexOf('nginx')).toBe(0);
    expect(log.indexOf('nginx', 1)).toBe(1);
    expect(log.indexOf('redis')).toBe(-1);
  });

  it('rejects waits on close, with the last lines in the message', async () => {
    const log = new LineLog();
    log.write('stdout', 'last words');
    const pending = log.waitFor('never');
    log.close('the app exited (code 1, signal null)');
    await expect(pending).rejects.toThrow(
      /the app exited \(code 1, signal null\); last lines:\nlast words/,
    );
    await expect(log.waitFor('never again')).rejects.toThrow(/the app exited/);
    await expect(log.waitFor('last words')).resolves.toBe('last words');
  });

  it('rejects a wait on abort and on timeout', async () => {
    const log = new LineLog();
    const controller = new AbortController();
    const aborted = log.waitFor('x', { signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toThrow(/aborted/);
    await expect(log.waitFor('x', { timeoutMs: 1 })).rejects.toThrow(/not printed within 1 ms/);
  });
});
