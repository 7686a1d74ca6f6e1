import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  parseRssAnon,
  type StartupSample,
  startupTable,
  subjectLabel,
  summarizeStartup,
} from './startup.ts';

const MB = 2 ** 20;
const sample = (
  label: string,
  ms: number,
  before: number,
  after: number,
  anon: number | null = null,
): StartupSample => ({
  label,
  ms,
  rssBeforeBytes: before * MB,
  rssAfterBytes: after * MB,
  rssAnonAfterBytes: anon === null ? null : anon * MB,
});

describe('startup summary', () => {
  it('labels each subject', () => {
    expect(subjectLabel({ kind: 'bare' })).toBe('bare Node');
    expect(subjectLabel({ kind: 'import', specifier: '@kubets/rest' })).toBe(
      "import('@kubets/rest')",
    );
    expect(
      subjectLabel({
        kind: 'kubeconfig',
        client: 'kubets',
        user: 'token',
        format: 'JSON',
        kubeconfig: 'k',
      }),
    ).toBe("import('@kubets/rest') + loadConfig, token kubeconfig (JSON)");
    expect(
      subjectLabel({ kind: 'controller', client: 'client-node', kubeconfig: 'k', namespace: 'n' }),
    ).toBe('idle controller: client-node makeInformer + array queue');
    const serviceAccount = { dir: 'sa', host: '127.0.0.1', port: '6443' };
    expect(
      subjectLabel({
        kind: 'in-cluster-controller',
        client: 'kubets',
        serviceAccount,
        namespace: 'n',
      }),
    ).toBe('idle controller, in-cluster config: kubets informer + rate-limiting queue');
    expect(
      subjectLabel({
        kind: 'in-cluster-controller',
        client: 'floor',
        serviceAccount,
        namespace: 'n',
      }),
    ).toBe(
      'idle controller, in-cluster config: floor (node:https list + watch, JSON.parse, Map, array queue)',
    );
    expect(
      subjectLabel({
        kind: 'in-cluster-controller',
        client: 'floor-importing-kubets',
        serviceAccount,
        namespace: 'n',
      }),
    ).toBe(
      'idle controller, in-cluster config: floor, with @kubets/rest, cache and workqueue imported and unused',
    );
  });

  it('takes medians per label, in first-seen order, of time, added RSS and RSS', () => {
    const rows = summarizeStartup([
      sample('bare Node', 1, 40, 40),
      sample("import('@kubets/rest')", 30, 40, 50, 12),
      sample('bare Node', 1, 42, 42),
      sample("import('@kubets/rest')", 50, 41, 60, 9),
      sample("import('@kubets/rest')", 40, 40, 52),
    ]);
    expect(rows).toEqual([
      { label: 'bare Node', runs: 2, ms: 1, addedMB: 0, rssMB: 41, anonMB: null },
      { label: "import('@kubets/rest')", runs: 3, ms: 40, addedMB: 12, rssMB: 52, anonMB: 10.5 },
    ]);
  });

  it('renders a markdown table; bare Node has no time or added RSS', () => {
    const table = startupTable([
      { label: 'bare Node', runs: 3, ms: 1, addedMB: 0, rssMB: 43.25, anonMB: 8.04 },
      {
        label: "import('@kubets/rest')",
        runs: 3,
        ms: 31.26,
        addedMB: 12.04,
        rssMB: 55.3,
        anonMB: null,
      },
    ]);
    expect(table.split('\n')).toEqual([
      '| startup (fresh process each run) | runs | time (median) | RSS added (median) | RSS (median) | of it anonymous (median) |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      '| bare Node | 3 | — | — | 43.3 MB | 8.0 MB |',
      "| import('@kubets/rest') | 3 | 31.3 ms | +12.0 MB | 55.3 MB | — |",
    ]);
  });

  it('reads RssAnon from a /proc/<pid>/status text, in bytes', () => {
    const status = [
      'Name:\tnode',
      'VmRSS:\t   68000 kB',
      'RssAnon:\t   19456 kB',
      'RssFile:\t   48544 kB',
    ].join('\n');
    expect(parseRssAnon(status)).toBe(19456 * 1024);
    expect(parseRssAnon('Name:\tnode\nVmRSS:\t 1 kB\n')).toBeNull();
  });
});

describe('the idle controller path', () => {
  // One non-ASCII character anywhere in a bundle (a kept comment is enough) makes V8 hold the
  // whole file's source as a two-byte string: for @kubets/rest, 143 KB more heap in every
  // process that imports it. The packages' builds escape them (scripts/ascii-output.mjs).
  it.each([
    '@kubets/apimachinery',
    '@kubets/rest',
    '@kubets/cache',
    '@kubets/workqueue',
    '@kubets/informers',
    '@kubets/leaderelection',
    '@kubets/controller',
  ])('ships %s as ASCII-only JavaScript', (specifier) => {
    const dist = path.dirname(fileURLToPath(import.meta.resolve(specifier)));
    const bundles = readdirSync(dist).filter((name) => name.endsWith('.js'));
    expect(bundles).toContain('index.js');
    for (const name of bundles) {
      const text = readFileSync(path.join(dist, name), 'utf8');
      const at = text.search(/[\u0080-\uffff]/);
      expect(at === -1 ? '' : `${name}: …${text.slice(Math.max(0, at - 40), at + 10)}`).toBe('');
    }
  });
});
