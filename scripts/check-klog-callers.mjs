// Checks the caller of every klog line an app printed on a runtime (scripts/demo.sh --runtime):
// where the stack keeps every caller (Node, Deno) each line names a `file.ts:line` or a source
// (`@kubets/rest`, `manager`), never `???:1`; on Bun, whose proper tail calls can drop the
// caller's frame, no line names a `file:line` at all (left out as `???:1`), so none can name a
// wrong one (what issue 38 saw there: `[unknown]:7` on every line).
//
//   node scripts/check-klog-callers.mjs <node|bun|deno> <log file>
import { readFileSync } from 'node:fs';

const [runtime, file] = process.argv.slice(2);
if (!['node', 'bun', 'deno'].includes(runtime ?? '') || file === undefined) {
  console.error('usage: node scripts/check-klog-callers.mjs <node|bun|deno> <log file>');
  process.exit(2);
}

const klogLine = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ (\S+)\] /;
const fileAndLine = /^[\w.-]+\.[cm]?[jt]s:[1-9]\d*$/;
const source = /^[@\w][\w./-]*$/; // a library or component name: no colon
const unknown = '???:1';
const leavesCallerOut = runtime === 'bun';

const wrong = [];
let lines = 0;
for (const line of readFileSync(file, 'utf8').split('\n')) {
  const caller = klogLine.exec(line)?.[1];
  if (caller === undefined) continue;
  lines++;
  const fine = leavesCallerOut
    ? caller === unknown || source.test(caller)
    : fileAndLine.test(caller) || source.test(caller);
  if (!fine) wrong.push(line);
}
if (lines === 0) {
  console.error(`check-klog-callers: ${file} holds no klog line`);
  process.exit(1);
}
if (wrong.length > 0) {
  const expected = leavesCallerOut
    ? `${unknown} or a source name (${runtime} may have lost the caller's frame)`
    : 'file.ts:line or a source name';
  console.error(
    `check-klog-callers: ${wrong.length} of ${lines} klog lines on ${runtime} name a caller other than ${expected}:`,
  );
  for (const line of wrong.slice(0, 10)) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`check-klog-callers: ${lines} klog lines on ${runtime}, every caller as expected`);
