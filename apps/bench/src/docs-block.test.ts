import { describe, expect, it } from 'vitest';
import { endMarker, replaceBlock, startMarker } from './docs-block.ts';

const note = '<!-- written by apps/bench (pnpm bench); edit outside the markers -->';
const generated = (key: number | 'startup', body: string): string =>
  `${startMarker(key)}\n${note}\n\n${body}\n\n${endMarker(key)}`;

describe('replaceBlock', () => {
  const doc = [
    '# Benchmarks',
    '',
    '## Results',
    '',
    generated(10000, 'old 10k'),
    '',
    'prose between',
    '',
    generated(100000, 'old 100k'),
    '',
    '## Startup',
    '',
    generated('startup', 'old startup'),
    '',
    '## Later',
    '',
  ].join('\n');

  it("replaces only its own block's body, keeping the prose and the other blocks", () => {
    const next = replaceBlock(doc, 10000, 'new 10k');
    expect(next).toBe(doc.replace('old 10k', 'new 10k'));
    expect(replaceBlock(doc, 'startup', 'new startup')).toBe(
      doc.replace('old startup', 'new startup'),
    );
  });

  it('is idempotent: the same block twice gives the same text', () => {
    const once = replaceBlock(doc, 100000, 'new 100k');
    expect(replaceBlock(once, 100000, 'new 100k')).toBe(once);
  });

  it('puts a new Pod count after the last results block', () => {
    const next = replaceBlock(doc, 1000, 'new 1k');
    expect(next).toBe(
      doc.replace(
        `${endMarker(100000)}\n`,
        `${endMarker(100000)}\n\n${generated(1000, 'new 1k')}\n`,
      ),
    );
  });

  it('appends to a document with no results block yet', () => {
    expect(replaceBlock('# Benchmarks\n\n', 10000, 'first')).toBe(
      `# Benchmarks\n\n${generated(10000, 'first')}\n`,
    );
  });

  it('refuses a block with one marker missing or the two out of order', () => {
    const noEnd = doc.replace(endMarker(10000), '');
    expect(() => replaceBlock(noEnd, 10000, 'x')).toThrow(/broken 10000 block/);
    const swapped = `${endMarker(500)}\n${startMarker(500)}\n`;
    expect(() => replaceBlock(swapped, 500, 'x')).toThrow(/must both be there, in that order/);
  });
});
