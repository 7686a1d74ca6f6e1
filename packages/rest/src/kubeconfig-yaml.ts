// The YAML kubectl, kind and kubeadm write for a kubeconfig is a small part of YAML: block
// mappings and sequences, plain words and quoted strings. The `yaml` package parses all of
// YAML, and loading it costs a process about 8 MB of RSS, more than the rest of the client:
// this reads that small part itself and hands everything else to `yaml`. It answers only when
// it is sure to answer as `yaml.parse` would; anything it does not know (flow collections
// other than `{}` and `[]`, anchors, tags, block scalars, escapes, numbers, comments after a
// value, a key twice, ...) makes it answer `undefined`, and the caller parses with `yaml`.

/** One content line: its indentation and its text after it. */
interface Line {
  readonly indent: number;
  readonly text: string;
}

/** Thrown inside the reader for anything it leaves to `yaml`. */
class Unsupported extends Error {}

const unsupported = new Unsupported();

const plainKey = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
// Words the core schema reads as null or a boolean, wherever they are.
const nullWords = new Set(['null', 'Null', 'NULL', '~']);
const booleanWords = new Map([
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['false', false],
  ['False', false],
  ['FALSE', false],
]);
// A plain scalar starting with one of these is an indicator, a number or something else
// whose reading depends on rules this reader leaves to `yaml`.
const unsafeFirst = /^[-?:,[\]{}#&*!|>'"%@`+.0-9]/;

/**
 * Reads `text` as `yaml.parse` would when it is a kubeconfig of the simple kind tools write;
 * `undefined` when it uses anything else (the caller then parses it with `yaml`).
 */
export function parseSimpleYaml(text: string): unknown {
  if (/[\t\r\\\uFEFF]/.test(text)) return undefined;
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const content = raw.trimEnd();
    const text = content.trimStart();
    if (text === '' || text.startsWith('#')) continue;
    if (text.startsWith('---') || text.startsWith('...') || text.startsWith('%')) return undefined;
    lines.push({ indent: content.length - text.length, text });
  }
  if (lines.length === 0 || lines[0]!.indent !== 0) return undefined;
  try {
    const reader = new Reader(lines);
    const document = reader.mapping(0);
    return reader.done ? document : undefined;
  } catch (err) {
    if (err === unsupported) return undefined;
    throw err;
  }
}

class Reader {
  readonly #lines: readonly Line[];
  #next = 0;

  constructor(lines: readonly Line[]) {
    this.#lines = lines;
  }

  get done(): boolean {
    return this.#next === this.#lines.length;
  }

  #peek(): Line | undefined {
    return this.#lines[this.#next];
  }

  /** A block mapping whose keys are at `indent`; `first` is its first entry's text, if inline. */
  mapping(indent: number, first?: string): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    let entry = first;
    for (;;) {
      if (entry === undefined) {
        const line = this.#peek();
        if (line === undefined || line.indent < indent) return result;
        if (line.indent > indent || line.text.startsWith('-')) throw unsupported;
        entry = line.text;
        this.#next++;
      }
      const { key, rest } = splitEntry(entry);
      if (Object.hasOwn(result, key)) throw unsupported; // `yaml` refuses a key twice
      result[key] = rest === '' ? this.#nested(indent) : scalar(rest);
      if (rest !== '') this.#noContinuation(indent);
      entry = undefined;
    }
  }

  /** The value of a key at `indent` whose line ends after its colon. */
  #nested(indent: number): unknown {
    const line = this.#peek();
    if (line === undefined || line.indent < indent) return null;
    if (line.indent === indent) return line.text.startsWith('- ') ? this.#sequence(indent) : null;
    return line.text.startsWith('-') ? this.#sequence(line.indent) : this.mapping(line.indent);
  }

  /** A block sequence whose dashes are at `indent`. */
  #sequence(indent: number): unknown[] {
    const result: unknown[] = [];
    for (;;) {
      const line = this.#peek();
      // A line at the dashes' indentation that is no item ends a sequence written at its key's.
      if (line === undefined || line.indent < indent || !line.text.startsWith('- ')) {
        if (line !== undefined && line.indent > indent) throw unsupported;
        return result;
      }
      if (line.indent > indent) throw unsupported;
      this.#next++;
      const item = line.text.slice(2).trimStart();
      const column = indent + line.text.length - item.length;
      if (item.startsWith('-')) throw unsupported;
      if (isEntry(item)) {
        result.push(this.mapping(column, item));
      } else {
        result.push(scalar(item));
        this.#noContinuation(indent);
      }
    }
  }

  /** After an inline value, a deeper line would continue it (a multi-line scalar): not read here. */
  #noContinuation(indent: number): void {
    const line = this.#peek();
    if (line !== undefined && line.indent > indent) throw unsupported;
  }
}

/** True when `text` starts a mapping entry (`key:` or `key: value`). */
function isEntry(text: string): boolean {
  const colon = text.indexOf(':');
  return colon > 0 && (colon === text.length - 1 || text[colon + 1] === ' ');
}

/** `key: value` → its key and its value's text (empty when the value is on the next lines). */
function splitEntry(text: string): { key: string; rest: string } {
  let key: string;
  let after: string;
  if (text.startsWith('"')) {
    const close = text.indexOf('"', 1);
    if (close < 0) throw unsupported;
    key = text.slice(1, close);
    after = text.slice(close + 1);
    if (!after.startsWith(':')) throw unsupported;
  } else {
    const colon = text.indexOf(':');
    if (colon <= 0) throw unsupported;
    key = text.slice(0, colon);
    after = text.slice(colon);
    if (!plainKey.test(key) || nullWords.has(key) || booleanWords.has(key)) throw unsupported;
  }
  if (key === '__proto__') throw unsupported;
  if (after.length > 1 && after[1] !== ' ') throw unsupported;
  return { key, rest: after.slice(1).trim() };
}

/** An inline value: a quoted string, `{}`, `[]`, null, a boolean or a plain word. */
function scalar(text: string): unknown {
  if (text.startsWith('"')) {
    if (text.length < 2 || !text.endsWith('"') || text.indexOf('"', 1) !== text.length - 1) {
      throw unsupported;
    }
    return text.slice(1, -1);
  }
  if (text.startsWith("'")) {
    const inner = text.slice(1, -1);
    if (text.length < 2 || !text.endsWith("'") || inner.replaceAll("''", '').includes("'")) {
      throw unsupported;
    }
    return inner.replaceAll("''", "'");
  }
  if (text === '{}') return {};
  if (text === '[]') return [];
  if (nullWords.has(text)) return null;
  const boolean = booleanWords.get(text);
  if (boolean !== undefined) return boolean;
  if (unsafeFirst.test(text) || text.includes(': ') || text.includes(' #') || text.endsWith(':')) {
    throw unsupported;
  }
  return text;
}
