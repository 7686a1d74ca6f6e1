import { copyFile, mkdir } from 'node:fs/promises';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node22',
  // The server reads the built-in kinds' OpenAPI schemas at run time from
  // `./generated/openapi-builtins.json` beside its code (see src/openapi-builtins.ts).
  async onSuccess() {
    await mkdir('dist/generated', { recursive: true });
    await copyFile('src/generated/openapi-builtins.json', 'dist/generated/openapi-builtins.json');
  },
});
