// src/generated/ is committed; this fails when it is not what kubets-gen makes of
// crd/mydemo.yaml (then run `pnpm --filter @kubets-apps/crd-controller generate`).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareWithDirectory, generateFromCrd } from '@kubets/codegen';
import { expect, it } from 'vitest';

it('src/generated is up to date with crd/mydemo.yaml', async () => {
  const outDir = fileURLToPath(new URL('generated', import.meta.url));
  const crd = fileURLToPath(new URL('../crd/mydemo.yaml', import.meta.url));
  const files = await generateFromCrd(readFileSync(crd, 'utf8'), {
    fileName: 'crd/mydemo.yaml',
    outDir,
    importExtension: '.ts',
  });
  expect(compareWithDirectory(files, outDir)).toEqual([]);
  expect([...files.keys()]).toEqual([
    'crddemo.k8s.io/v1/clientset.ts',
    'crddemo.k8s.io/v1/index.ts',
    'crddemo.k8s.io/v1/informers.ts',
    'crddemo.k8s.io/v1/listers.ts',
    'crddemo.k8s.io/v1/resources.ts',
    'crddemo.k8s.io/v1/types.ts',
    'index.ts',
  ]);
}, 60_000);
