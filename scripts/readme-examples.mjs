#!/usr/bin/env node
// Every package README's example is code that runs: packages/<name>/src/readme.test.ts holds
// it between `// readme:start` and `// readme:end`, and this script checks that the first
// ```ts block after the README's "## Example" heading is that code, verbatim.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = join(root, 'packages');
const testFile = 'src/readme.test.ts';
const startMarker = '// readme:start';
const endMarker = '// readme:end';

const usage = `Usage: node scripts/readme-examples.mjs [--print] [package ...]

Checks that each package's README shows the example its ${testFile} runs.

In packages/<name>/${testFile}, the code between the lines
  ${startMarker}
  ${endMarker}
is the example. Inside the test it imports the package itself from './index.js'; the README
writes that as the package's public name ('@kubets/<name>'), and this script rewrites it the
same way before comparing. Other relative imports are not allowed in the example (a user
could not copy them).

The README must have a level-2 heading starting with "## Example", and the first \`\`\`ts
block after it must be the example, verbatim: only trailing whitespace, blank lines around
the block and the indentation of the whole block are ignored. That section must also say
that the example is taken from ${testFile}.

  package   a directory name under packages/ (e.g. rest) or a package name
            (e.g. @kubets/rest); default: every package
  --print   print each package's example as the README must show it, and check nothing
  --help    show this help

Exit status: 0 when every README matches, 1 when one does not (the package is named, with
where the two first differ), 2 on bad usage.`;

/** @param {string} text */
function lines(text) {
  return text.replace(/\r\n?/g, '\n').split('\n');
}

/** Trailing whitespace, surrounding blank lines and the block's common indentation removed. */
function normalize(blockLines) {
  const trimmed = blockLines.map((line) => line.replace(/\s+$/, ''));
  let first = 0;
  while (first < trimmed.length && trimmed[first] === '') first++;
  let last = trimmed.length;
  while (last > first && trimmed[last - 1] === '') last--;
  const body = trimmed.slice(first, last);
  const indents = body.filter((l) => l !== '').map((l) => /^[ \t]*/.exec(l)[0].length);
  const indent = indents.length > 0 ? Math.min(...indents) : 0;
  return { lines: body.map((l) => l.slice(indent)), skipped: first };
}

/** The marked region of a readme test, imports of './index.js' rewritten to `packageName`. */
function exampleOf(source, packageName) {
  const all = lines(source);
  const starts = [];
  const ends = [];
  all.forEach((line, i) => {
    if (line.trim() === startMarker) starts.push(i);
    if (line.trim() === endMarker) ends.push(i);
  });
  if (starts.length !== 1 || ends.length !== 1) {
    return {
      error: `${testFile} needs exactly one '${startMarker}' and one '${endMarker}' line (found ${starts.length} and ${ends.length})`,
    };
  }
  const [start] = starts;
  const [end] = ends;
  if (end <= start + 1) {
    return { error: `${testFile}: '${endMarker}' must come after '${startMarker}' and code` };
  }
  const region = all
    .slice(start + 1, end)
    .map((line) =>
      line.replace(/(\bfrom\s+|\bimport\s*\(\s*)(['"])\.\/index\.js\2/g, `$1$2${packageName}$2`),
    );
  const testOnly = region.findIndex((line) => /\bfrom\s+['"]vitest['"]/.test(line));
  if (testOnly !== -1) {
    return {
      error: `${testFile}:${start + 2 + testOnly}: the example imports vitest, which belongs to the test around it (import it after '${endMarker}', where sorting imports cannot pull it in)`,
    };
  }
  const relative = region.findIndex((line) => /\bfrom\s+['"]\.{1,2}\//.test(line));
  if (relative !== -1) {
    return {
      error: `${testFile}:${start + 2 + relative}: the example imports a relative module other than './index.js', which a user cannot copy: ${region[relative].trim()}`,
    };
  }
  return { example: normalize(region).lines, firstLine: start + 2 };
}

/** Fenced code blocks and headings (outside fences) of a Markdown file, with 1-based lines. */
function parseMarkdown(text) {
  const all = lines(text);
  const blocks = [];
  const headings = [];
  let open;
  all.forEach((line, i) => {
    if (open) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === open.fence[0] && close[1].length >= open.fence.length) {
        blocks.push({ lang: open.lang, line: open.line, lines: open.lines });
        open = undefined;
      } else {
        open.lines.push(line);
      }
      return;
    }
    const fence = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (fence) {
      open = { fence: fence[1], lang: fence[2].toLowerCase(), line: i + 1, lines: [] };
      return;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) headings.push({ level: heading[1].length, text: heading[2], line: i + 1 });
  });
  return { blocks, headings, lineCount: all.length };
}

const isTs = (block) => block.lang === 'ts' || block.lang === 'typescript';

/** A short hint at where `actual` (README) first differs from `expected` (test). */
function diffHint(expected, actual, readmeFirstLine, testFirstLine) {
  const n = Math.max(expected.length, actual.length);
  for (let i = 0; i < n; i++) {
    if (expected[i] === actual[i]) continue;
    const show = (line) => (line === undefined ? '(nothing: the block ends here)' : line);
    return [
      `  first difference at example line ${i + 1} (README.md:${readmeFirstLine + i}, ${testFile}:${testFirstLine + i}):`,
      `    - ${testFile}: ${show(expected[i])}`,
      `    + README.md:          ${show(actual[i])}`,
      `  run \`node scripts/readme-examples.mjs --print <package>\` for the whole block the README must show`,
    ].join('\n');
  }
  return '';
}

function check(dir, packageName, example, firstLine) {
  const readmePath = join(packagesDir, dir, 'README.md');
  if (!existsSync(readmePath)) return [`packages/${dir}: README.md is missing`];
  const { blocks, headings, lineCount } = parseMarkdown(readFileSync(readmePath, 'utf8'));
  const heading = headings.find((h) => h.level === 2 && /^Example\b/.test(h.text));
  if (!heading) return [`packages/${dir}: README.md has no "## Example" heading`];
  const next = headings.find((h) => h.line > heading.line && h.level <= 2);
  const sectionEnd = next ? next.line : lineCount + 1;
  const problems = [];
  const sectionText = lines(readFileSync(readmePath, 'utf8'))
    .slice(heading.line - 1, sectionEnd - 1)
    .join('\n');
  if (!sectionText.includes(testFile)) {
    problems.push(
      `packages/${dir}: README.md's "## ${heading.text}" section (line ${heading.line}) does not say that the example is taken from ${testFile}`,
    );
  }
  const block = blocks.find((b) => isTs(b) && b.line > heading.line && b.line < sectionEnd);
  if (!block) {
    problems.push(
      `packages/${dir}: README.md has no \`\`\`ts block in its "## ${heading.text}" section (line ${heading.line}); it must show the example of ${testFile}`,
    );
    return problems;
  }
  const actual = normalize(block.lines);
  if (actual.lines.join('\n') === example.join('\n')) return problems;
  const elsewhere = blocks.find(
    (b) => b !== block && isTs(b) && normalize(b.lines).lines.join('\n') === example.join('\n'),
  );
  if (elsewhere) {
    problems.push(
      `packages/${dir}: the example of ${testFile} is the \`\`\`ts block at README.md:${elsewhere.line}, but it must be the first \`\`\`ts block after "## ${heading.text}" (README.md:${block.line})`,
    );
    return problems;
  }
  problems.push(
    `packages/${dir}: README.md's example (the \`\`\`ts block at line ${block.line}, after "## ${heading.text}") is not the code ${testFile} runs (its lines ${firstLine}-${firstLine + example.length - 1}, './index.js' read as '${packageName}')\n${diffHint(example, actual.lines, block.line + 1 + actual.skipped, firstLine)}`,
  );
  return problems;
}

function main(argv) {
  let print = false;
  const wanted = [];
  for (const arg of argv) {
    if (arg === '--help' || arg === '-h') {
      console.log(usage);
      return 0;
    }
    if (arg === '--print') print = true;
    else if (arg.startsWith('-')) {
      console.error(`readme-examples: unknown option ${arg}\n\n${usage}`);
      return 2;
    } else wanted.push(arg);
  }

  const packages = readdirSync(packagesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(packagesDir, e.name, 'package.json')))
    .map((e) => ({
      dir: e.name,
      name: JSON.parse(readFileSync(join(packagesDir, e.name, 'package.json'), 'utf8')).name,
    }))
    .sort((a, b) => a.dir.localeCompare(b.dir));
  for (const w of wanted) {
    if (!packages.some((p) => p.dir === w || p.name === w)) {
      console.error(`readme-examples: no package ${w} under packages/`);
      return 2;
    }
  }
  const selected =
    wanted.length === 0
      ? packages
      : packages.filter((p) => wanted.includes(p.dir) || wanted.includes(p.name));

  const problems = [];
  for (const { dir, name } of selected) {
    const path = join(packagesDir, dir, testFile);
    if (!existsSync(path)) {
      problems.push(`packages/${dir}: ${testFile} is missing (it holds the README's example)`);
      continue;
    }
    const result = exampleOf(readFileSync(path, 'utf8'), name);
    if (result.error) {
      problems.push(`packages/${dir}: ${result.error}`);
      continue;
    }
    if (print) {
      console.log(
        `packages/${dir}/README.md, after "## Example":\n\n\`\`\`ts\n${result.example.join('\n')}\n\`\`\`\n`,
      );
      continue;
    }
    problems.push(...check(dir, name, result.example, result.firstLine));
  }

  if (problems.length > 0) {
    for (const p of problems) console.error(`readme-examples: ${p}`);
    console.error(
      `readme-examples: ${problems.length} problem${problems.length === 1 ? '' : 's'}; a README's example must be the code its ${testFile} runs (see --help)`,
    );
    return 1;
  }
  if (!print) {
    console.log(
      `readme-examples: ${selected.length} package README${selected.length === 1 ? '' : 's'} show the example their ${testFile} runs`,
    );
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
