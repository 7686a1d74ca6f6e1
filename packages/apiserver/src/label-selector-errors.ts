import { labelValueProblems, qualifiedNameProblems } from './validation/metadata.js';

/**
 * Why kube-apiserver 1.20 refuses a `labelSelector`, in its words. apimachinery's label parser
 * reads the selector as tokens (identifiers and the operators `!`, `=`, `==`, `!=`, `<`, `>`,
 * `in`, `notin`, parentheses and commas) and names the first token it did not expect; the
 * messages differ from `@kubets/apimachinery`'s, which names positions.
 */

type Token =
  | 'end'
  | 'identifier'
  | '('
  | ')'
  | ','
  | '!'
  | '='
  | '=='
  | '!='
  | '<'
  | '>'
  | 'in'
  | 'notin';

interface Scanned {
  token: Token;
  literal: string;
}

const SYMBOLS: ReadonlySet<string> = new Set(['(', ')', ',', '!', '=', '==', '!=', '<', '>']);
const KEYWORDS: ReadonlySet<string> = new Set(['in', 'notin']);
const isSymbolChar = (ch: string): boolean => '=!(),<>'.includes(ch);
const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

/** The selector as the Go lexer splits it, ending with an `end` token. */
function scan(selector: string): Scanned[] {
  const out: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < selector.length && isSpace(selector[pos] as string)) pos++;
    if (pos >= selector.length) {
      out.push({ token: 'end', literal: '' });
      return out;
    }
    const start = pos;
    if (isSymbolChar(selector[pos] as string)) {
      // The longest run of symbol characters that is an operator (every single one is).
      let operator: Scanned = { token: selector[pos] as Token, literal: selector[pos] as string };
      for (let end = pos + 2; end <= selector.length; end++) {
        const run = selector.slice(start, end);
        if (!isSymbolChar(run.at(-1) as string) || !SYMBOLS.has(run)) break;
        operator = { token: run as Token, literal: run };
      }
      pos = start + operator.literal.length;
      out.push(operator);
      continue;
    }
    while (
      pos < selector.length &&
      !isSymbolChar(selector[pos] as string) &&
      !isSpace(selector[pos] as string)
    ) {
      pos++;
    }
    const word = selector.slice(start, pos);
    out.push({ token: KEYWORDS.has(word) ? (word as Token) : 'identifier', literal: word });
  }
}

class SelectorError extends Error {}

/** The reader of scanned tokens; `in` and `notin` are identifiers where values are expected. */
class Tokens {
  #items: Scanned[];
  #position = 0;

  constructor(items: Scanned[]) {
    this.#items = items;
  }

  peek(values = true): Scanned {
    return asValue(this.#items[this.#position] as Scanned, values);
  }

  next(values = true): Scanned {
    const item = this.peek(values);
    this.#position++;
    return item;
  }
}

function asValue(item: Scanned, values: boolean): Scanned {
  if (values && (item.token === 'in' || item.token === 'notin')) {
    return { token: 'identifier', literal: item.literal };
  }
  return item;
}

const fail = (message: string): never => {
  throw new SelectorError(message);
};

function checkKey(key: string): void {
  const problems = qualifiedNameProblems(key);
  if (problems.length > 0) fail(`invalid label key "${key}": ${problems.join('; ')}`);
}

function requirement(tokens: Tokens): void {
  let { token, literal } = tokens.next();
  const negated = token === '!';
  if (negated) ({ token, literal } = tokens.next());
  if (token !== 'identifier') fail(`found '${literal}', expected: identifier`);
  const key = literal;
  checkKey(key);
  const after = tokens.peek().token;
  // `!key` takes no operator: what follows it is the next requirement's business.
  if (negated || after === 'end' || after === ',') return;
  const operator = tokens.next(false);
  let values: string[];
  switch (operator.token) {
    case 'in':
    case 'notin':
      values = valueSet(tokens);
      if (values.length === 0) fail("for 'in', 'notin' operators, values set can't be empty");
      break;
    case '=':
    case '==':
    case '!=':
    case '<':
    case '>':
      values = [exactValue(tokens)];
      break;
    default:
      throw new SelectorError(
        `found '${operator.literal}', expected: '=', '!=', '==', 'in', notin'`,
      );
  }
  if (
    (operator.token === '<' || operator.token === '>') &&
    !/^[+-]?\d+$/.test(values[0] as string)
  ) {
    fail("for 'Gt', 'Lt' operators, the value must be an integer");
  }
  // Checked in sorted order, as a Go string set lists them.
  for (const value of [...new Set(values)].sort()) {
    const problems = labelValueProblems(value);
    if (problems.length > 0) {
      fail(`invalid label value: "${value}": at key: "${key}": ${problems.join('; ')}`);
    }
  }
}

function exactValue(tokens: Tokens): string {
  const ahead = tokens.peek().token;
  if (ahead === 'end' || ahead === ',') return '';
  const { token, literal } = tokens.next();
  if (token !== 'identifier') fail(`found '${literal}', expected: identifier`);
  return literal;
}

function valueSet(tokens: Tokens): string[] {
  const open = tokens.next();
  if (open.token !== '(') fail(`found '${open.literal}' expected: '('`);
  const first = tokens.peek();
  if (first.token === ')') {
    tokens.next();
    return [''];
  }
  if (first.token !== 'identifier' && first.token !== ',') {
    fail(`found '${first.literal}', expected: ',', ')' or identifier`);
  }
  const values = identifierList(tokens);
  if (tokens.next().token !== ')') fail(`found '${first.literal}', expected: ')'`);
  return values;
}

function identifierList(tokens: Tokens): string[] {
  const values: string[] = [];
  for (;;) {
    const { token, literal } = tokens.next();
    if (token === 'identifier') {
      values.push(literal);
      const after = tokens.peek();
      if (after.token === ',') continue;
      if (after.token === ')') return values;
      fail(`found '${after.literal}', expected: ',' or ')'`);
    } else if (token === ',') {
      if (values.length === 0) values.push('');
      const after = tokens.peek().token;
      if (after === ')') {
        values.push('');
        return values;
      }
      if (after === ',') {
        tokens.next();
        values.push('');
      }
    } else {
      fail(`found '${literal}', expected: ',', or identifier`);
    }
  }
}

/** kube-apiserver 1.20's message for a label selector it refuses; undefined when it accepts it. */
export function labelSelectorError(selector: string): string | undefined {
  const tokens = new Tokens(scan(selector));
  for (;;) {
    const { token, literal } = tokens.peek();
    if (token === 'end') return undefined;
    if (token !== 'identifier' && token !== '!') {
      return `found '${literal}', expected: !, identifier, or 'end of string'`;
    }
    try {
      requirement(tokens);
    } catch (error) {
      if (error instanceof SelectorError) return `unable to parse requirement: ${error.message}`;
      throw error;
    }
    const after = tokens.next();
    if (after.token === 'end') return undefined;
    if (after.token !== ',') return `found '${after.literal}', expected: ',' or 'end of string'`;
    const following = tokens.peek();
    if (following.token !== 'identifier' && following.token !== '!') {
      return `found '${following.literal}', expected: identifier after ','`;
    }
  }
}
