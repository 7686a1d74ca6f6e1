// Writes src/generated/*.ts from @kubets/clientset's resource table (see codegen.ts).
//
//   node scripts/generate.ts           regenerate (removes stale generated files)
//   node scripts/generate.ts --check   exit 1, listing the differences, when the committed
//                                      files differ from what the table generates
//
// `pnpm --filter @kubets/informers generate [-- --check]` runs it. It reads the built
// @kubets/clientset: after changing the clientset's table, regenerate and build the
// clientset first.

import { runGenerator } from '@kubets/codegen-kit';
import { generatedDir, packageDir, render } from './codegen.ts';

process.exitCode = await runGenerator(
  { name: 'informers', packageName: '@kubets/informers', packageDir, generatedDir, render },
  process.argv.slice(2),
);
