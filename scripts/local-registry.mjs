#!/usr/bin/env node
// A read-only npm registry on loopback that serves the packed tarballs of one folder, so a
// scratch project can run the documented `npm install @kubets/...` line unchanged with
// `npm_config_@kubets:registry` pointing here: every other package still comes from the
// registry npm is configured with.
//
//   node scripts/local-registry.mjs <tarball-dir>   (prints its URL, serves until killed)
//   import { startLocalRegistry } from './local-registry.mjs'
//
// A package that is not among the tarballs answers 404, as a registry would, so a name the
// docs get wrong fails the install instead of being fetched from elsewhere.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';

/**
 * Serves the tarballs of `dir` on a free loopback port. Resolves with the registry's URL and
 * a function that stops it.
 */
export async function startLocalRegistry(dir) {
  /** name -> { manifest, file, integrity, shasum } */
  const packages = new Map();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.tgz'))) {
    const tarball = path.join(dir, file);
    const manifest = JSON.parse(
      execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
    );
    const bytes = readFileSync(tarball);
    packages.set(manifest.name, {
      manifest,
      file,
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      shasum: createHash('sha1').update(bytes).digest('hex'),
    });
  }
  const files = new Set([...packages.values()].map((p) => p.file));

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/-/tarballs/')) {
      const file = path.basename(url.pathname);
      if (!files.has(file)) return notFound(res, url.pathname);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(readFileSync(path.join(dir, file)));
    }
    let name;
    try {
      name = decodeURIComponent(url.pathname.slice(1));
    } catch {
      return notFound(res, 'a malformed package name');
    }
    const pkg = packages.get(name);
    if (!pkg) return notFound(res, name);
    const { version } = pkg.manifest;
    const tarball = `http://127.0.0.1:${server.address().port}/-/tarballs/${pkg.file}`;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        name,
        'dist-tags': { latest: version },
        versions: {
          [version]: {
            ...pkg.manifest,
            _id: `${name}@${version}`,
            dist: { tarball, integrity: pkg.integrity, shasum: pkg.shasum },
          },
        },
      }),
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

function notFound(res, what) {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: `not found: ${what}` }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: local-registry.mjs <tarball-dir>');
    process.exit(2);
  }
  const { url } = await startLocalRegistry(dir);
  console.log(url);
}
