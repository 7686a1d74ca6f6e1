#!/usr/bin/env node
// Packs every publishable package under packages/ (those without "private": true) into one
// folder, as `pnpm publish` would pack them (`workspace:` ranges resolved): the one packing step
// of scripts/pack-check.sh, scripts/guide-check.mjs and scripts/scaffold-check.mjs.
//
//   node scripts/pack-tarballs.mjs <dest-dir> [--no-build]
//   import { packTarballs } from './pack-tarballs.mjs'
//
// Builds the packages first (turbo, cached) unless --no-build / `build: false`. Fails, naming
// the step, when the build or `pnpm pack` fails or a package's tarball is missing.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The publishable packages: `{ dir, name, version }` of each packages/* not marked private. */
export function publishablePackages() {
  const found = [];
  for (const dir of readdirSync(path.join(root, 'packages')).sort()) {
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(path.join(root, 'packages', dir, 'package.json'), 'utf8'));
    } catch {
      continue; // not a package
    }
    if (!manifest.private) found.push({ dir, name: manifest.name, version: manifest.version });
  }
  return found;
}

/** The file name `pnpm pack` gives a package's tarball (`@kubets/rest` → `kubets-rest-1.0.0.tgz`). */
export function tarballName({ name, version }) {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/**
 * Packs every publishable package into `dest` (created if missing), after a build unless
 * `build` is false. Resolves with `{ name, version, file }` per package (`file`: the tarball's
 * path). Output of the build and of pnpm goes to `log` (a function; default: discarded),
 * and is part of the error when a step fails.
 */
export function packTarballs(dest, { build = true, log = () => {} } = {}) {
  const run = (what, command, args) => {
    try {
      log(execFileSync(command, args, { cwd: root, encoding: 'utf8', stdio: 'pipe' }));
    } catch (err) {
      throw new Error(`${what} failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
    }
  };
  if (build) {
    run('build', 'pnpm', [
      'exec',
      'turbo',
      'run',
      'build',
      '--filter=./packages/*',
      '--output-logs=errors-only',
    ]);
  }
  mkdirSync(dest, { recursive: true });
  run('pnpm pack', 'pnpm', ['-r', '--filter', './packages/*', 'pack', '--pack-destination', dest]);
  const packed = new Set(readdirSync(dest).filter((f) => f.endsWith('.tgz')));
  const packages = publishablePackages().map((p) => ({
    ...p,
    file: path.join(dest, tarballName(p)),
  }));
  const missing = packages.filter((p) => !packed.has(path.basename(p.file)));
  if (missing.length > 0) {
    throw new Error(`no tarball for ${missing.map((p) => p.name).join(', ')} in ${dest}`);
  }
  if (packed.size !== packages.length) {
    throw new Error(`expected ${packages.length} tarballs in ${dest}, found ${packed.size}`);
  }
  return packages;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const dest = args.find((a) => !a.startsWith('--'));
  if (!dest || args.some((a) => a.startsWith('--') && a !== '--no-build')) {
    console.error('usage: pack-tarballs.mjs <dest-dir> [--no-build]');
    process.exit(2);
  }
  try {
    const packages = packTarballs(path.resolve(dest), { build: !args.includes('--no-build') });
    console.log(`pack-tarballs: ${packages.length} packages packed into ${dest}`);
  } catch (err) {
    console.error(`pack-tarballs: FAIL: ${err.message}`);
    process.exit(1);
  }
}
