#!/usr/bin/env node
// Follows docs/guide.md word for word, as a new user would, from the packed tarballs:
//
//   1. builds the packages (turbo, cached) unless --no-build, and packs every publishable one;
//   2. serves the tarballs from a registry on loopback (scripts/local-registry.mjs) that npm
//      uses for the @kubets scope only, so the guide's `npm install` lines run unchanged and a
//      package they forget is missing, as it would be for the user;
//   3. runs the guide's steps in a new folder: the shell blocks marked
//      `<!-- guide-check: run -->` (`e2e`: only when KUBEBUILDER_ASSETS is set), the files
//      marked `<!-- guide-check: file PATH -->` written where the guide says, and
//      `<!-- guide-check: copy REPO-PATH PATH -->` for a file the guide links instead of
//      showing whole.
//
// Every ```ts block of the guide must be one of its files, so none goes unchecked. Exits
// non-zero naming the step that failed; KEEP_TMP=1 keeps the temp folder.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalRegistry } from './local-registry.mjs';
import { packTarballs } from './pack-tarballs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const guidePath = path.join(root, 'docs/guide.md');
const started = Date.now();
const log = (message) =>
  console.log(`guide-check: [${Math.round((Date.now() - started) / 1000)}s] ${message}`);
const fail = (message) => {
  throw new GuideCheckError(message);
};
class GuideCheckError extends Error {}

/** The guide's steps, in order: `{ kind: 'run' | 'e2e' | 'file' | 'copy', line, ... }`. */
function guideSteps(markdown) {
  const lines = markdown.split('\n');
  const steps = [];
  let pending;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const marker = /^<!-- guide-check: (run|e2e|file|copy)\b\s*(.*?)\s*-->$/.exec(line);
    if (marker) {
      const [, kind, args] = marker;
      if (kind === 'copy') {
        const [from, to, extra] = args.split(/\s+/);
        if (!from || !to || extra) fail(`docs/guide.md:${i + 1}: copy takes REPO-PATH PATH`);
        steps.push({ kind, line: i + 1, from, to });
      } else {
        if (kind === 'file' ? !args || /\s/.test(args) : args)
          fail(`docs/guide.md:${i + 1}: bad marker ${line}`);
        pending = { kind, line: i + 1, path: args };
      }
      continue;
    }
    const fence = /^```(\w*)/.exec(line);
    if (!fence) continue;
    const lang = fence[1];
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== '```') end++;
    if (end === lines.length) fail(`docs/guide.md:${i + 1}: a code block that never ends`);
    const body = `${lines.slice(start, end).join('\n')}\n`;
    if (pending) {
      if (pending.kind !== 'file' && lang !== 'sh')
        fail(`docs/guide.md:${i + 1}: only sh blocks run`);
      steps.push({ ...pending, body });
      pending = undefined;
    } else if (lang === 'ts') {
      fail(
        `docs/guide.md:${i + 1}: a TypeScript block with no <!-- guide-check: file PATH --> marker goes unchecked`,
      );
    }
    i = end;
  }
  if (pending) fail(`docs/guide.md:${pending.line}: a marker with no code block after it`);
  return steps;
}

/**
 * npm hoists what the packages depend on, so an import of a package the install lines forgot
 * can still resolve here and fail for a user of pnpm or of a later version: every package the
 * project's code (generated code included) imports must be in its package.json.
 */
function checkDeclaredImports(work) {
  const manifests = readdirSync(work, { recursive: true }).filter(
    (f) => path.basename(f) === 'package.json' && !f.split(path.sep).includes('node_modules'),
  );
  if (manifests.length !== 1)
    fail(`expected one project created by the guide, found ${manifests.length}`);
  const project = path.join(work, path.dirname(manifests[0]));
  const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8'));
  const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }));
  const sources = readdirSync(path.join(project, 'src'), { recursive: true }).filter((f) =>
    f.endsWith('.ts'),
  );
  const missing = new Set();
  for (const file of sources) {
    const text = readFileSync(path.join(project, 'src', file), 'utf8');
    for (const [, specifier] of text.matchAll(/\bfrom\s+['"]([^'".][^'"]*)['"]/g)) {
      if (specifier.startsWith('node:')) continue;
      const parts = specifier.split('/');
      const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      if (!declared.has(name)) missing.add(`${name} (imported by src/${file})`);
    }
  }
  if (missing.size > 0) fail(`the guide's install lines leave out ${[...missing].join(', ')}`);
  log(`every package imported by src/ (${sources.length} files) is in package.json`);
}

/** One bash script that takes the steps in order, in one shell (a `cd` carries over). */
function script(steps, withE2e) {
  const out = ['set -euo pipefail'];
  for (const step of steps) {
    out.push(
      `echo "guide-check: docs/guide.md:${step.line} (${step.kind}${step.path ? ` ${step.path}` : ''})"`,
    );
    if (step.kind === 'run' || (step.kind === 'e2e' && withE2e)) out.push(step.body);
    else if (step.kind === 'e2e')
      out.push('echo "guide-check: skipped, KUBEBUILDER_ASSETS is not set"');
    else if (step.kind === 'file') {
      if (step.body.includes('KUBETS_GUIDE_EOF'))
        fail(`docs/guide.md:${step.line}: the block contains the heredoc end word`);
      out.push(
        `mkdir -p "$(dirname '${step.path}')"`,
        `cat >'${step.path}' <<'KUBETS_GUIDE_EOF'`,
        `${step.body}KUBETS_GUIDE_EOF`,
      );
    } else {
      out.push(`mkdir -p "$(dirname '${step.to}')"`, `cp "$KUBETS_REPO/${step.from}" '${step.to}'`);
    }
  }
  return `${out.join('\n')}\n`;
}

try {
  await main();
} catch (err) {
  if (!(err instanceof GuideCheckError)) throw err;
  console.error(`guide-check: FAIL: ${err.message}`);
  process.exitCode = 1;
}

async function main() {
  const steps = guideSteps(readFileSync(guidePath, 'utf8'));
  if (!steps.some((s) => s.kind === 'run')) fail('docs/guide.md marks no step to run');

  const tmp = mkdtempSync(path.join(tmpdir(), 'kubets-guide-check.'));
  if (tmp.startsWith(`${root}${path.sep}`)) fail(`temp dir ${tmp} is inside the workspace`);
  const cleanup = () => {
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: the script's own switch, read by no turbo task
    if (process.env.KEEP_TMP === '1') console.log(`guide-check: keeping ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  };

  // Asynchronous: the registry serves from this process's event loop while npm runs.
  const run = (command, args, options = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, { stdio: 'inherit', ...options });
      child.on('error', reject);
      child.on('close', (code) => resolve(code === 0));
    });

  let registry;
  try {
    log(
      `packing the packages${process.argv.includes('--no-build') ? '' : ', after a build (turbo)'}`,
    );
    const tarballs = path.join(tmp, 'tarballs');
    try {
      packTarballs(tarballs, { build: !process.argv.includes('--no-build') });
    } catch (err) {
      fail(err.message);
    }
    registry = await startLocalRegistry(tarballs);
    log(`@kubets packages served at ${registry.url}`);

    const work = path.join(tmp, 'work');
    mkdirSync(work);
    const withE2e = Boolean(process.env.KUBEBUILDER_ASSETS);
    writeFileSync(path.join(tmp, 'steps.sh'), script(steps, withE2e));
    log(`following docs/guide.md in ${work} (${steps.length} steps)`);
    const ok = await run('bash', [path.join(tmp, 'steps.sh')], {
      cwd: work,
      env: {
        ...process.env,
        KUBETS_REPO: root,
        'npm_config_@kubets:registry': registry.url,
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        npm_config_loglevel: 'error',
      },
    });
    if (!ok) fail('a step of docs/guide.md failed (the line is printed above)');
    checkDeclaredImports(work);
    log('docs/guide.md followed to the end');
  } finally {
    await registry?.stop();
    cleanup();
  }
}
