import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'apiserver/cli': 'src/apiserver/cli.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node22',
});
