import { silentLogger } from '@kubets/apimachinery';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Manager } from './index.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Manager logger', () => {
  it('writes klog text lines to stderr unless given another logger', () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const mgr = new Manager({ host: 'http://127.0.0.1:1' });
    mgr.logger.info('Starting workers', { controller: 'web', workerCount: 1 });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(
      /^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [^ ]+:\d+\] "Starting workers" controller="web" workerCount=1\n$/,
    );
  });

  it('stays silent with silentLogger', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const mgr = new Manager({ host: 'http://127.0.0.1:1' }, { logger: silentLogger });
    mgr.logger.error('nothing');
    expect(write).not.toHaveBeenCalled();
  });
});
