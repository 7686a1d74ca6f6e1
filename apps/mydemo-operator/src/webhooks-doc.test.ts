// docs/webhooks.md shows the operator's webhook code: each of its ```ts blocks must be lines
// of one of the operator's files, verbatim but for the indentation of the whole block, so the
// chapter's code is the code that is type-checked and run by these tests.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const repo = new URL('../../../', import.meta.url);
const chapter = readFileSync(new URL('docs/webhooks.md', repo), 'utf8');
const sources = [
  'src/webhooks.ts',
  'src/manager-options.ts',
  'src/manifests.ts',
  'test/webhook-scenarios.ts',
].map((path) => ({
  path,
  lines: readFileSync(new URL(`apps/mydemo-operator/${path}`, repo), 'utf8')
    .split('\n')
    .map((line) => line.trim()),
}));

/** The ```ts blocks of `markdown`, each as its lines without indentation. */
function tsBlocks(markdown: string): string[][] {
  const blocks: string[][] = [];
  for (const match of markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    blocks.push(
      (match[1] ?? '')
        .replace(/\n$/, '')
        .split('\n')
        .map((line) => line.trim()),
    );
  }
  return blocks;
}

/** The file `block` is lines of, or undefined. */
function sourceOf(block: readonly string[]): string | undefined {
  for (const { path, lines } of sources) {
    for (
      let at = lines.indexOf(block[0] ?? '');
      at >= 0;
      at = lines.indexOf(block[0] ?? '', at + 1)
    ) {
      if (block.every((line, i) => lines[at + i] === line)) return path;
    }
  }
  return undefined;
}

describe('docs/webhooks.md', () => {
  const blocks = tsBlocks(chapter);

  it('has code blocks', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(10);
  });

  it.each(blocks.map((block) => [block[0], block] as const))(
    'shows operator code verbatim: %s',
    (_first, block) => {
      expect(sourceOf(block), block.join('\n')).toBeDefined();
    },
  );
});
