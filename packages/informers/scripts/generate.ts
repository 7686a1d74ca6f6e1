// Writes src/generated/*.ts from @kubets/clientset's resource table (see codegen.ts).
//
//   node scripts/generate.ts           regenerate (removes stale generated files)
//   node scripts/generate.ts --check   exit 1, listing the differences, when the committed
//                                      files differ from what the table generates
//
// `pnpm --filter @kubets/informers generate [-- --check]` runs it. It reads the built
// @kubets/clientset: after changing the clientset's table, regenerate and build the
// clientset first.

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedDir, packageDir, render } from './codegen.ts';

function existingFiles(): string[] {
  try {
    return readdirSync(join(packageDir, generatedDir))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${generatedDir}/${name}`);
  } catch {
    return [];
  }
}

async function main(argv: string[]): Promise<number> {
  const check = argv.includes('--check');
  const unknown = argv.filter((arg) => arg !== '--check' && arg !== '--');
  if (unknown.length > 0) {
    process.stderr.write(
      `generate: unknown arguments: ${unknown.join(' ')}\nusage: generate [--check]\n`,
    );
    return 2;
  }
  const files = await render();
  const stale = existingFiles().filter((path) => !files.has(path));
  if (check) {
    const problems: string[] = [];
    for (const [path, content] of files) {
      let current: string | undefined;
      try {
        current = readFileSync(join(packageDir, path), 'utf8');
      } catch {
        current = undefined;
      }
      if (current === undefined) problems.push(`missing: ${path}`);
      else if (current !== content) problems.push(`out of date: ${path}`);
    }
    for (const path of stale) problems.push(`not generated from the table (stale): ${path}`);
    if (problems.length > 0) {
      process.stderr.write(
        `generated informers code is out of date:\n  ${problems.join('\n  ')}\nrun: pnpm --filter @kubets/informers generate\n`,
      );
      return 1;
    }
    process.stdout.write(`generated informers code is up to date (${files.size} files)\n`);
    return 0;
  }
  mkdirSync(join(packageDir, generatedDir), { recursive: true });
  for (const path of stale) rmSync(join(packageDir, path));
  for (const [path, content] of files) writeFileSync(join(packageDir, path), content);
  process.stdout.write(`wrote ${files.size} files to ${generatedDir}\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
