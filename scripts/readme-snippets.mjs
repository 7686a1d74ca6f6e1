#!/usr/bin/env node
// Writes every ```ts block of the given Markdown files into a folder, one module per block,
// so that a consumer project (scripts/pack-check.sh: the packages installed from their
// tarballs) can type-check them the way a user who pastes one would: strict, with
// exactOptionalPropertyTypes and noUncheckedIndexedAccess.
//
// Each block must compile on its own. A block that continues an earlier one states what it
// takes from it with `declare const ...` lines, which a reader can follow too. A block that
// is not TypeScript to compile (a signature list, a shell session) uses another fence label
// (```text, ```sh).
//
// Usage: node scripts/readme-snippets.mjs <out-dir> <file.md>...
//   Prints one line per written module: `<module>\t<markdown file>:<line of the fence>`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const [outDir, ...files] = process.argv.slice(2);
if (outDir === undefined || files.length === 0) {
  console.error('Usage: node scripts/readme-snippets.mjs <out-dir> <file.md>...');
  process.exit(2);
}

/**
 * The ```ts blocks of a Markdown text, with the 1-based line of each opening fence.
 * @param {string} text
 */
export function tsBlocks(text) {
  const blocks = [];
  let current;
  for (const [index, line] of text.split('\n').entries()) {
    if (current === undefined) {
      if (/^```ts\s*$/.test(line)) current = { line: index + 1, code: [] };
    } else if (/^```\s*$/.test(line)) {
      blocks.push({ line: current.line, code: current.code.join('\n') });
      current = undefined;
    } else {
      current.code.push(line);
    }
  }
  if (current !== undefined) throw new Error(`unclosed \`\`\`ts block at line ${current.line}`);
  return blocks;
}

mkdirSync(outDir, { recursive: true });
for (const file of files) {
  // packages/cache/README.md -> cache-README; docs/guide.md -> docs-guide
  const stem = `${basename(dirname(file))}-${basename(file, '.md')}`;
  let blocks;
  try {
    blocks = tsBlocks(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`${file}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  for (const [n, block] of blocks.entries()) {
    const module = `${stem}-${n + 1}.ts`;
    // `export {}` makes a block without imports a module, so top-level await and its own
    // names stay its own.
    writeFileSync(join(outDir, module), `${block.code}\nexport {};\n`);
    console.log(`${module}\t${file}:${block.line}`);
  }
}
