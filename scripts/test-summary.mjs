// Adds up the vitest JSON reports every package wrote during this run and prints one
// closing line, "N passed, N failed", so CI reads one total for all packages. A failure is
// repeated here with its test's name and the start of its message: CI keeps only the tail of
// the output, and a flaky test must be identifiable from that tail alone.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
const failedSuites = [];
const failures = [];
const firstLines = (text, count) =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, count)
    .map((line) => `    ${line.trimEnd().slice(0, 300)}`)
    .join('\n');
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
      for (const suite of report.testResults ?? []) {
        const where = relative(root, suite.name);
        // A file that failed before any test ran (import error, hook timeout) has no test.
        if (suite.status === 'failed' && (suite.message ?? '') !== '') {
          failures.push(`${where}\n${firstLines(suite.message, 12)}`);
        }
        for (const test of suite.assertionResults ?? []) {
          if (test.status !== 'failed') continue;
          const message = firstLines((test.failureMessages ?? []).join('\n'), 12);
          failures.push(
            `${where} > ${test.fullName} (${Math.round(test.duration ?? 0)} ms)\n${message}`,
          );
        }
      }
    }
  }
}
for (const failure of failures) console.log(`FAILED ${failure}`);
if (failedSuites.length > 0) console.log(`failing: ${failedSuites.join(', ')}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || failedSuites.length > 0 ? 1 : 0);
