import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultUserAgent } from './config.js';

describe('defaultUserAgent', () => {
  it('names kubets, the platform and node', () => {
    expect(defaultUserAgent()).toBe(
      `kubets/${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version} (${process.platform}/${process.arch}) node/${process.version}`,
    );
  });
});
