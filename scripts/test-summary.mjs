// Adds up the vitest JSON reports every package wrote during this run and prints one
// closing line, "N passed, N failed", so CI reads one total for all packages.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
const failedSuites = [];
for (const group of ['packages', 'apps', 'tools']) {
  const groupDir = join(root, group);
  if (!existsSync(groupDir)) continue;
  for (const name of readdirSync(groupDir)) {
    const resultsDir = join(groupDir, name, '.vitest-results');
    if (!existsSync(resultsDir)) continue;
    for (const file of readdirSync(resultsDir).filter((f) => f.endsWith('.json'))) {
      const report = JSON.parse(readFileSync(join(resultsDir, file), 'utf8'));
      passed += report.numPassedTests;
      failed += report.numFailedTests;
      skipped += report.numPendingTests + (report.numTodoTests ?? 0);
      if (report.numFailedTests > 0 || report.success === false) {
        failedSuites.push(`${group}/${name} (${file})`);
      }
    }
  }
}
if (failedSuites.length > 0) console.log(`failing: ${failedSuites.join(', ')}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || failedSuites.length > 0 ? 1 : 0);
