import { describe, expect, it } from 'vitest';
import {
  formatMiB,
  installSizeTable,
  npmMetadata,
  packageOfPath,
  summarizeInstall,
} from './install-size.ts';

const MiB = 2 ** 20;

describe('packageOfPath', () => {
  it.each([
    ['yaml/dist/index.js', 'yaml'],
    ['yaml/package.json', 'yaml'],
    ['@kubets/rest/dist/index.js', '@kubets/rest'],
    ['@kubets/rest/package.json', '@kubets/rest'],
    ['a/node_modules/b/lib/x.js', 'b'],
    ['a/node_modules/@s/c/x.js', '@s/c'],
    ['@s/a/node_modules/b/node_modules/@t/c/d/e.js', '@t/c'],
    // A folder of a package that is merely called node_modules-like is still the package's.
    ['a/lib/node_modules.js', 'a'],
  ])('%s belongs to %s', (file, name) => {
    expect(packageOfPath(file)).toBe(name);
  });

  it.each([
    '.package-lock.json',
    '.bin/tsc',
    'a/node_modules/.package-lock.json',
    'a/node_modules/.bin/x',
  ])("%s is npm's own", (file) => {
    expect(packageOfPath(file)).toBe(npmMetadata);
  });

  it.each(['', '/abs/x.js', '../x.js', 'a/./b.js', 'a//b.js'])('refuses %j', (file) => {
    expect(() => packageOfPath(file)).toThrow(/not a relative path of a file under node_modules/);
  });
});

describe('summarizeInstall', () => {
  it('sums bytes and files per package, nested copies under their own name, largest first', () => {
    const summary = summarizeInstall([
      { path: 'yaml/dist/index.js', bytes: 300 },
      { path: 'yaml/package.json', bytes: 100 },
      { path: '@kubets/rest/dist/index.js', bytes: 500 },
      { path: '@kubets/cache/node_modules/yaml/index.js', bytes: 50 },
      { path: 'rfc6902/index.js', bytes: 400 },
      { path: '.package-lock.json', bytes: 7 },
    ]);
    expect(summary).toEqual({
      totalBytes: 1357,
      files: 6,
      packages: [
        { name: '@kubets/rest', bytes: 500, files: 1 },
        { name: 'yaml', bytes: 450, files: 3 },
        { name: 'rfc6902', bytes: 400, files: 1 },
        { name: npmMetadata, bytes: 7, files: 1 },
      ],
    });
  });

  it('orders packages of equal size by name', () => {
    const { packages } = summarizeInstall([
      { path: 'b/x', bytes: 1 },
      { path: 'a/x', bytes: 1 },
    ]);
    expect(packages.map((p) => p.name)).toEqual(['a', 'b']);
  });
});

describe('installSizeTable', () => {
  const summary = summarizeInstall([
    { path: '@kubets/controller/dist/index.js', bytes: 3 * MiB },
    { path: '@kubets/rest/dist/index.js', bytes: 1 * MiB },
    { path: 'yaml/dist/index.js', bytes: 2 * MiB },
    { path: 'rfc6902/index.js', bytes: 0.5 * MiB },
    { path: 'kubernetes-types/index.d.ts', bytes: 0.25 * MiB },
    { path: '.package-lock.json', bytes: 1024 },
  ]);
  const context = { installed: '@kubets/controller', ownScope: '@kubets', limitBytes: 12 * MiB };

  it('gives the total against the target, own and other packages, then the largest', () => {
    expect(installSizeTable(summary, { ...context, top: 3 }).split('\n')).toEqual([
      '| node_modules after `npm install @kubets/controller` | size | files |',
      '| --- | ---: | ---: |',
      '| **total** (7,078,912 bytes; target ≤ 12.00 MB: met) | **6.75 MB** | 6 |',
      '| @kubets packages (2) | 4.00 MB | 2 |',
      '| other packages (3) | 2.75 MB | 3 |',
      "| npm's own files (`.package-lock.json`, `.bin`) | 0.00 MB | 1 |",
      '| `@kubets/controller` | 3.00 MB | 1 |',
      '| `yaml` | 2.00 MB | 1 |',
      '| `@kubets/rest` | 1.00 MB | 1 |',
      '| 2 smaller packages | 0.75 MB | 2 |',
    ]);
  });

  it('says when the target is not met, and leaves out the remainder row when every package is shown', () => {
    const lines = installSizeTable(summary, { ...context, limitBytes: 6 * MiB, top: 10 }).split(
      '\n',
    );
    expect(lines[2]).toBe(
      '| **total** (7,078,912 bytes; target ≤ 6.00 MB: **not met**) | **6.75 MB** | 6 |',
    );
    expect(lines).toHaveLength(6 + 5);
    expect(lines.some((line) => line.includes('smaller packages'))).toBe(false);
  });
});

describe('formatMiB', () => {
  it('prints MiB with two decimals', () => {
    expect(formatMiB(0)).toBe('0.00 MB');
    expect(formatMiB(1.5 * MiB)).toBe('1.50 MB');
    expect(formatMiB(12 * MiB + 1)).toBe('12.00 MB');
  });
});
