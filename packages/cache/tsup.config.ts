import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/compat.ts', 'src/prometheus.ts', 'src/testing.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
});
