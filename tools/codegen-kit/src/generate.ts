// Writes the generated files of one package from the resource table (src/resource-table.ts).
//
//   node tools/codegen-kit/src/generate.ts <target>           regenerate (removes stale files)
//   node tools/codegen-kit/src/generate.ts <target> --check   exit 1, listing the differences,
//                                                            when the committed files differ
//
// Targets: clientset, informers, apiserver. `pnpm --filter @kubets/<target> generate [--check]`
// runs it.

import { targets } from './builtins.ts';
import { runGenerator } from './index.ts';

const [name = '', ...args] = process.argv.slice(2);
const generator = Object.hasOwn(targets, name) ? targets[name as keyof typeof targets] : undefined;
if (generator === undefined) {
  process.stderr.write(
    `generate: unknown target "${name}"\nusage: generate <${Object.keys(targets).join('|')}> [--check]\n`,
  );
  process.exitCode = 2;
} else {
  process.exitCode = await runGenerator(generator, args);
}
