import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';

/** One way a value can end up in a log: how it was printed, and the text. */
export interface PrintedForm {
  /** How the value was printed, e.g. `inspect depth Infinity` or `console.log`. */
  readonly how: string;
  /** What was printed. */
  readonly text: string;
}

/**
 * `value` printed every way it commonly reaches a log: `util.inspect` to any depth (with
 * and without hidden properties), `JSON.stringify` (skipped when it throws, e.g. on a
 * cycle) and `console.log`'s formatting. Assert on the texts that no credential appears:
 *
 * ```ts
 * for (const { how, text } of printedForms(client)) expect(text, how).not.toContain(token);
 * ```
 */
export function printedForms(value: unknown): PrintedForm[] {
  const forms: PrintedForm[] = [
    { how: 'inspect depth Infinity', text: inspect(value, { depth: Infinity }) },
    {
      how: 'inspect depth Infinity showHidden',
      text: inspect(value, { depth: Infinity, showHidden: true }),
    },
    { how: 'console.log', text: consoleLogged(value) },
  ];
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) forms.push({ how: 'JSON.stringify', text: json });
  } catch {
    // Values with cycles (or BigInts) cannot be serialized; nothing reaches a log that way.
  }
  return forms;
}

// The text `console.log(value)` writes, captured from a console of our own so the test
// output stays clean (and test runners that intercept the global console do not interfere).
function consoleLogged(value: unknown): string {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  new Console({ stdout: sink, stderr: sink }).log(value);
  return text;
}
