import { defineConfig } from 'tsup';
import { asciiOutput } from '../../scripts/ascii-output.mjs';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
  // Non-ASCII in a kept comment doubles the heap the module's source takes (see the plugin).
  plugins: [asciiOutput],
});
