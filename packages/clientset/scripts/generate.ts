// Writes src/generated/*.ts from scripts/resources.ts.
//
//   node scripts/generate.ts           regenerate (removes stale generated files)
//   node scripts/generate.ts --check   exit 1, listing the differences, when the committed
//                                      files differ from what the table generates
//
// `pnpm --filter @kubets/clientset generate [-- --check]` runs it.

import { runGenerator } from '@kubets/codegen-kit';
import { generatedDir, packageDir, render } from './codegen.ts';

process.exitCode = await runGenerator(
  { name: 'clientset', packageName: '@kubets/clientset', packageDir, generatedDir, render },
  process.argv.slice(2),
);
