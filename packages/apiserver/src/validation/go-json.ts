import { goQuote } from '../resource-version.js';

/**
 * The error Go's `json.Unmarshal(text, &map[string]interface{}{})` returns, or undefined when
 * it succeeds: kube-apiserver quotes it for a docker config Secret whose JSON is not an
 * object. Syntax errors use the wording of Go's scanner for the first bad byte.
 */
export function goUnmarshalMapError(text: string): string | undefined {
  const syntax = new GoJsonScanner(text).scan();
  if (syntax !== undefined) return syntax;
  const first = text.trimStart()[0];
  if (first === '{' || first === 'n') return undefined;
  const kind =
    first === '['
      ? 'array'
      : first === '"'
        ? 'string'
        : first === 't' || first === 'f'
          ? 'bool'
          : 'number';
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

/**
 * The syntax error Go's `encoding/json` scanner reports for `text`, or undefined when it is one
 * valid JSON value. Go scans bytes: pass them as latin1 text, one character a byte, so a byte
 * of a multi-byte character is shown as Go shows it.
 */
export function goJsonSyntaxError(text: string): string | undefined {
  return new GoJsonScanner(text).scan();
}

/** Go's `quoteChar`: how its scanner shows the offending character. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  return `'${goQuote(c).slice(1, -1)}'`;
}

class SyntaxFailure extends Error {}

const WHITESPACE = ' \t\r\n';
const END = 'unexpected end of JSON input';

/** A recursive-descent check that fails with the message Go's scanner gives. */
class GoJsonScanner {
  #at = 0;
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }

  scan(): string | undefined {
    try {
      this.#value('looking for beginning of value');
      this.#skipSpace();
      if (this.#at < this.#text.length) this.#fail('after top-level value');
      return undefined;
    } catch (error) {
      if (error instanceof SyntaxFailure) return error.message;
      throw error;
    }
  }

  /** Fails between tokens: at the end of the input that is Go's `unexpected end`. */
  #fail(context: string): never {
    const c = this.#text[this.#at];
    throw new SyntaxFailure(c === undefined ? END : `invalid character ${quoteChar(c)} ${context}`);
  }

  /** Fails inside a literal, a number or an escape: Go's scanner ends the input with a space. */
  #failWithin(context: string): never {
    throw new SyntaxFailure(
      `invalid character ${quoteChar(this.#text[this.#at] ?? ' ')} ${context}`,
    );
  }

  #skipSpace(): void {
    while (this.#at < this.#text.length && WHITESPACE.includes(this.#text[this.#at] ?? ''))
      this.#at++;
  }

  #value(context: string): void {
    this.#skipSpace();
    const c = this.#text[this.#at];
    if (c === '{') this.#object();
    else if (c === '[') this.#array();
    else if (c === '"') this.#string();
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) this.#number();
    else {
      const literal = ['true', 'false', 'null'].find((word) => word[0] === c);
      if (literal === undefined) this.#fail(context);
      this.#literal(literal);
    }
  }

  /** Steps over `c` when it comes next. */
  #consume(c: string): boolean {
    if (this.#text[this.#at] !== c) return false;
    this.#at++;
    return true;
  }

  /** An object or an array: `element` repeated, separated by ',', up to `close`. */
  #sequence(close: string, element: () => void, after: string): void {
    this.#at++;
    this.#skipSpace();
    if (this.#consume(close)) return;
    for (;;) {
      element();
      this.#skipSpace();
      if (this.#consume(close)) return;
      if (!this.#consume(',')) this.#fail(after);
    }
  }

  #object(): void {
    this.#sequence('}', () => this.#member(), 'after object key:value pair');
  }

  #member(): void {
    this.#skipSpace();
    if (this.#text[this.#at] !== '"') this.#fail('looking for beginning of object key string');
    this.#string();
    this.#skipSpace();
    if (this.#text[this.#at] !== ':') this.#fail('after object key');
    this.#at++;
    this.#value('looking for beginning of value');
  }

  #array(): void {
    this.#sequence(']', () => this.#value('looking for beginning of value'), 'after array element');
  }

  #string(): void {
    this.#at++;
    for (;;) {
      const c = this.#text[this.#at];
      if (c === undefined) this.#fail('in string literal');
      if (c === '"') {
        this.#at++;
        return;
      }
      if (c < ' ') this.#fail('in string literal');
      this.#at++;
      if (c === '\\') this.#escape();
    }
  }

  #escape(): void {
    const c = this.#text[this.#at];
    if (c !== undefined && '"\\/bfnrt'.includes(c)) {
      this.#at++;
      return;
    }
    if (c !== 'u') this.#failWithin('in string escape code');
    this.#at++;
    for (let i = 0; i < 4; i++) {
      if (!/^[0-9a-fA-F]$/.test(this.#text[this.#at] ?? '')) {
        this.#failWithin('in \\u hexadecimal character escape');
      }
      this.#at++;
    }
  }

  #digits(context: string): void {
    if (!/^[0-9]$/.test(this.#text[this.#at] ?? '')) this.#failWithin(context);
    while (/^[0-9]$/.test(this.#text[this.#at] ?? '')) this.#at++;
  }

  #number(): void {
    if (this.#text[this.#at] === '-') this.#at++;
    if (this.#text[this.#at] === '0') this.#at++;
    else this.#digits('in numeric literal');
    if (this.#text[this.#at] === '.') {
      this.#at++;
      this.#digits('after decimal point in numeric literal');
    }
    if (this.#text[this.#at] === 'e' || this.#text[this.#at] === 'E') {
      this.#at++;
      if (this.#text[this.#at] === '+' || this.#text[this.#at] === '-') this.#at++;
      this.#digits('in exponent of numeric literal');
    }
  }

  #literal(word: string): void {
    for (let i = 0; i < word.length; i++) {
      if (this.#text[this.#at] !== word[i])
        this.#failWithin(`in literal ${word} (expecting ${quoteChar(word[i] ?? '')})`);
      this.#at++;
    }
  }
}
