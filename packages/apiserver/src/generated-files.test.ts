import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('generated files', () => {
  it.each([
    ['wire-types.generated.ts', 'generate-wire-types.mjs'],
    ['generated/openapi-builtins.json', 'generate-openapi.mjs'],
    // From the Kubernetes 1.20 source envtest's provisioning unpacks; checked where it is.
    ['wire-order.generated.ts', 'generate-wire-order.mjs'],
  ])('%s is what scripts/%s writes', (_file, generator) => {
    const script = fileURLToPath(new URL(`../scripts/${generator}`, import.meta.url));
    // Throws (non-zero exit) when the file is out of date.
    expect(() =>
      execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' }),
    ).not.toThrow();
  });
});
