// Test helper: type-checks generated code with the workspace's TypeScript, resolving the
// @kubets/* imports to the built packages (their dist/*.d.ts), under strict settings.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const packages = ['apimachinery', 'cache', 'clientset', 'informers', 'listers'];

/** Where `@kubets/<name>`'s declarations are (its built `dist/index.d.ts`). */
function declarationsOf(name: string): string {
  return join(dirname(require.resolve(`@kubets/${name}/package.json`)), 'dist', 'index.d.ts');
}

/** A temporary directory with `files` written into it; `cleanup()` removes it. */
export function writeTree(files: ReadonlyMap<string, string>): {
  dir: string;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'kubets-codegen-'));
  for (const [path, contents] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), contents);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Type-checks every `.ts` file of `files` (paths relative to one root) and returns the
 * diagnostics as `path(line,col): message` lines — empty when it compiles.
 */
export function typecheck(
  files: ReadonlyMap<string, string>,
  extraOptions: Record<string, unknown> = {},
): string[] {
  const { dir, cleanup } = writeTree(files);
  try {
    const rootTypes = dirname(dirname(require.resolve('@types/node/package.json')));
    const paths: Record<string, string[]> = {};
    for (const name of packages) paths[`@kubets/${name}`] = [declarationsOf(name)];
    const parsed = ts.parseJsonConfigFileContent(
      {
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023', 'ESNext.Disposable'],
          module: 'ESNext',
          moduleResolution: 'Bundler',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noImplicitOverride: true,
          noImplicitReturns: true,
          noUnusedLocals: true,
          noUnusedParameters: true,
          isolatedModules: true,
          verbatimModuleSyntax: true,
          skipLibCheck: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [rootTypes],
          paths,
          ...extraOptions,
        },
        files: [...files.keys()].filter((p) => p.endsWith('.ts')),
      },
      ts.sys,
      dir,
    );
    if (parsed.errors.length > 0) {
      throw new Error(
        parsed.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'),
      );
    }
    const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return message;
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      const path = d.file.fileName.startsWith(dir)
        ? d.file.fileName.slice(dir.length + 1)
        : d.file.fileName;
      return `${path}(${line + 1},${character + 1}): ${message}`;
    });
  } finally {
    cleanup();
  }
}
