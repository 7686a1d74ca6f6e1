// Fails when two packages export one public name for two different things: a name exported
// by several packages must be the same declaration re-exported (as the meta/v1 call options
// that @kubets/clientset and @kubets/dynamic re-export from @kubets/apimachinery). Reads every
// non-testing entry of each package's exports map from the built .d.ts (run after
// `pnpm build`). `/testing` entries are left out: test helpers may shadow main-entry names.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ts = createRequire(path.join(root, 'package.json'))('typescript');

/** name → { declaring "file#line" → ["package/subpath", ...] } */
const byName = new Map();
const missing = [];
for (const dir of fs.readdirSync(path.join(root, 'packages')).sort()) {
  const manifest = path.join(root, 'packages', dir, 'package.json');
  if (!fs.existsSync(manifest)) continue;
  const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (subpath.includes('testing') || typeof target !== 'object') continue;
    const types = target.types;
    if (typeof types !== 'string') continue;
    const file = path.join(root, 'packages', dir, types);
    if (!fs.existsSync(file)) {
      missing.push(path.relative(root, file));
      continue;
    }
    const program = ts.createProgram([file], { skipLibCheck: true, noEmit: true });
    const checker = program.getTypeChecker();
    const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file));
    if (moduleSymbol === undefined) continue;
    const entry = path.posix.join(pkg.name, subpath);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      let symbol = exported;
      if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const declaration = symbol.declarations?.[0];
      const where = declaration
        ? `${realPackagePath(declaration.getSourceFile().fileName)}#${declarationName(declaration)}`
        : `?#${exported.getName()}`;
      const name = exported.getName();
      if (!byName.has(name)) byName.set(name, new Map());
      const declarations = byName.get(name);
      if (!declarations.has(where)) declarations.set(where, []);
      declarations.get(where).push(entry);
    }
  }
}

// A package's d.ts is reached through node_modules symlinks or its own dist: name both by the
// package directory, so one declaration is one key.
function realPackagePath(fileName) {
  const real = fs.realpathSync(fileName);
  return path.relative(root, real);
}

function declarationName(declaration) {
  return declaration.name?.getText?.() ?? declaration.pos;
}

if (missing.length > 0) {
  console.error(`check-exports: build first; missing ${missing.join(', ')}`);
  process.exit(1);
}
const collisions = [...byName].filter(([, declarations]) => declarations.size > 1);
for (const [name, declarations] of collisions) {
  console.error(`check-exports: ${name} means ${declarations.size} different things:`);
  for (const [where, entries] of declarations) console.error(`  ${entries.join(', ')} → ${where}`);
}
if (collisions.length > 0) {
  console.error(
    'One public name, one meaning: rename one of them, or re-export the same declaration.',
  );
  process.exit(1);
}
console.log(`check-exports: ${byName.size} public names, each with one meaning`);
