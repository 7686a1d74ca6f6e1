import { readFileSync } from 'node:fs';

/**
 * This package's version, from its package.json (one folder up from both `src/` and `dist/`):
 * the @kubets packages are released with it, at the same version.
 */
export function ownVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return manifest.version;
}
