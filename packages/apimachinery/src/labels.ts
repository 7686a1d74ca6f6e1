import { TermConjunction } from './selector-terms.js';
import { isDNS1123Subdomain } from './validation.js';

/**
 * How a {@link Requirement} compares a label, spelled as in client-go's `selection.Operator`:
 * `=`/`==` equal, `!=` not equal, `in`/`notin` set membership, `exists` (`key`),
 * `!` (`!key`, does not exist), and `gt`/`lt` (integer comparison, `key>3`).
 */
export type SelectionOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** Operators of a `metav1.LabelSelector` match expression. */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** One `matchExpressions` entry of a `metav1.LabelSelector`. */
export interface LabelSelectorRequirement {
  /** The label key the requirement applies to. */
  key: string;
  /** How the label's value is compared with `values`. */
  operator: LabelSelectorOperator | (string & {});
  /** The values for `In`/`NotIn`; must be empty for `Exists`/`DoesNotExist`. */
  values?: string[];
}

/**
 * The structured label selector of API objects (`spec.selector` of a Deployment, ...):
 * all `matchLabels` pairs and all `matchExpressions` must hold.
 */
export interface LabelSelector {
  /** Labels that must all be present with exactly these values. */
  matchLabels?: Record<string, string>;
  /** Set-based requirements that must all hold. */
  matchExpressions?: LabelSelectorRequirement[];
}

/** Labels to match against: a label map, or `undefined` for an object without labels. */
export type Labels = Readonly<Record<string, string>> | undefined;

/**
 * A label selector was malformed: bad syntax, an invalid key or value, or an operator
 * used with the wrong number of values. The message names the offending part and, for
 * parsed strings, the 0-based position in the input.
 */
export class SelectorParseError extends Error {
  /** The whole selector string, when the error came from parsing one. */
  readonly input: string | undefined;
  /** 0-based offset into {@link input} where the problem was found. */
  readonly position: number | undefined;

  constructor(message: string, options?: { input?: string; position?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SelectorParseError';
    this.input = options?.input;
    this.position = options?.position;
  }
}

const qualifiedNameMaxLength = 63;
const labelValueMaxLength = 63;
const qualifiedNamePattern = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const integerPattern = /^[-+]?[0-9]+$/;

/** Why `key` is not a valid label key, or `undefined` when it is. */
function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    if (prefix === '') return 'the prefix before "/" must not be empty';
    const prefixProblems = isDNS1123Subdomain(prefix);
    if (prefixProblems.length > 0) {
      return prefixProblems.map((problem) => `prefix part ${problem}`).join('; ');
    }
  }
  if (name === '') return 'the name part must not be empty';
  if (name.length > qualifiedNameMaxLength) {
    return `the name part must be no more than ${qualifiedNameMaxLength} characters`;
  }
  if (!qualifiedNamePattern.test(name)) {
    return "the name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Why `value` is not a valid label value, or `undefined` when it is. */
function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > labelValueMaxLength) {
    return `must be no more than ${labelValueMaxLength} characters`;
  }
  if (!qualifiedNamePattern.test(value)) {
    return "must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/**
 * True for a valid label key: an optional DNS-subdomain prefix (≤ 253 characters) and `/`,
 * then a name of ≤ 63 characters from `[A-Za-z0-9-_.]` starting and ending alphanumeric.
 */
export function isValidLabelKey(key: string): boolean {
  return labelKeyProblem(key) === undefined;
}

/** True for a valid label value: empty, or ≤ 63 characters as for a key's name part. */
export function isValidLabelValue(value: string): boolean {
  return labelValueProblem(value) === undefined;
}

const setOperators: ReadonlySet<SelectionOperator> = new Set(['in', 'notin']);
const exactOperators: ReadonlySet<SelectionOperator> = new Set(['=', '==', '!=']);
const existenceOperators: ReadonlySet<SelectionOperator> = new Set(['exists', '!']);
const numericOperators: ReadonlySet<SelectionOperator> = new Set(['gt', 'lt']);

/**
 * One condition of a label selector, e.g. `tier in (frontend,backend)`. Immutable; the
 * constructor validates the key, the values, and the value count for the operator.
 */
export class Requirement {
  /** The label key this requirement tests. */
  readonly key: string;
  /** How the label is tested: equality, set membership or existence. */
  readonly operator: SelectionOperator;
  /** The values, sorted and without duplicates for `in`/`notin`. */
  readonly values: readonly string[];

  /**
   * @throws {SelectorParseError} for an invalid key or value, no values for `in`/`notin`,
   *   not exactly one value for `=`/`==`/`!=`/`gt`/`lt`, values for `exists`/`!`, or a
   *   non-integer value for `gt`/`lt`.
   */
  constructor(key: string, operator: SelectionOperator, values: readonly string[] = []) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem)
      throw new SelectorParseError(`invalid label key ${JSON.stringify(key)}: ${keyProblem}`);
    if (setOperators.has(operator)) {
      if (values.length === 0) {
        throw new SelectorParseError(
          `label requirement on ${JSON.stringify(key)}: '${operator}' needs at least one value`,
        );
      }
    } else if (exactOperators.has(operator)) {
      if (values.length !== 1) {
        throw new SelectorParseError(
          `label requirement on ${JSON.stringify(key)}: '${operator}' needs exactly one value, got ${values.length}`,
        );
      }
    } else if (existenceOperators.has(operator)) {
      if (values.length !== 0) {
        throw new SelectorParseError(
          `label requirement on ${JSON.stringify(key)}: '${operator === '!' ? 'does not exist' : 'exists'}' takes no values, got ${values.length}`,
        );
      }
    } else if (numericOperators.has(operator)) {
      if (values.length !== 1 || !integerPattern.test(values[0] ?? '')) {
        throw new SelectorParseError(
          `label requirement on ${JSON.stringify(key)}: '${operator}' needs exactly one integer value`,
        );
      }
    } else {
      throw new SelectorParseError(
        `${JSON.stringify(operator)} is not a valid label selector operator`,
      );
    }
    for (const value of values) {
      const valueProblem = labelValueProblem(value);
      if (valueProblem) {
        throw new SelectorParseError(
          `invalid label value ${JSON.stringify(value)} for key ${JSON.stringify(key)}: ${valueProblem}`,
        );
      }
    }
    this.key = key;
    this.operator = operator;
    // Sorted, de-duplicated set values give one canonical string per selector.
    this.values = Object.freeze(
      setOperators.has(operator) ? [...new Set(values)].sort(compareStrings) : [...values],
    );
    Object.freeze(this);
  }

  /**
   * Whether `labels` satisfy this requirement. `!=` and `notin` match when the label is
   * absent, as in Kubernetes; `gt`/`lt` need the label present and an integer.
   */
  matches(labels: Labels): boolean {
    const has = labels !== undefined && Object.hasOwn(labels, this.key);
    const value = has ? labels[this.key] : undefined;
    switch (this.operator) {
      case '=':
      case '==':
      case 'in':
        return value !== undefined && this.values.includes(value);
      case '!=':
      case 'notin':
        return value === undefined || !this.values.includes(value);
      case 'exists':
        return has;
      case '!':
        return !has;
      case 'gt':
      case 'lt': {
        if (value === undefined || !integerPattern.test(value)) return false;
        const actual = BigInt(value);
        const bound = BigInt(this.values[0] ?? '0');
        return this.operator === 'gt' ? actual > bound : actual < bound;
      }
    }
  }

  /** The selector-string form: `key=value`, `key in (a,b)`, `!key`, `key>3`, ... */
  toString(): string {
    switch (this.operator) {
      case 'exists':
        return this.key;
      case '!':
        return `!${this.key}`;
      case 'in':
      case 'notin':
        return `${this.key} ${this.operator} (${this.values.join(',')})`;
      case 'gt':
        return `${this.key}>${this.values[0]}`;
      case 'lt':
        return `${this.key}<${this.values[0]}`;
      default:
        return `${this.key}${this.operator}${this.values[0]}`;
    }
  }
}

/**
 * A parsed label selector: the conjunction of its requirements. Implementations are
 * immutable; {@link Selector.add} returns a new selector.
 */
export interface Selector {
  /** Whether all requirements hold for `labels` (`undefined` = no labels). */
  matches(labels: Labels): boolean;
  /** True when the selector has no requirements and so matches everything. */
  empty(): boolean;
  /** The requirements, sorted by key. */
  requirements(): readonly Requirement[];
  /** The canonical string form: requirements sorted by key, joined with `,`. */
  toString(): string;
  /** A new selector with `requirements` added. */
  add(...requirements: Requirement[]): Selector;
  /**
   * The value `label` must equal for this selector to match (from `label=value`,
   * `label==value` or `label in (value)`), or `undefined` when it does not pin one value.
   * Listers use this to serve a selector from an index.
   */
  requiresExactMatch(label: string): string | undefined;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

class RequirementsSelector extends TermConjunction<Requirement, Labels> implements Selector {
  constructor(requirements: readonly Requirement[]) {
    // Stable sort by key only, as client-go's ByKey does: several requirements on one key
    // keep the order they were given in.
    super([...requirements].sort((a, b) => compareStrings(a.key, b.key)));
  }

  protected termMatches(requirement: Requirement, labels: Labels): boolean {
    return requirement.matches(labels);
  }

  protected termString(requirement: Requirement): string {
    return requirement.toString();
  }

  protected pinnedValue({ key, operator, values }: Requirement, label: string): string | undefined {
    if (key !== label || values.length !== 1) return undefined;
    return operator === '=' || operator === '==' || operator === 'in' ? values[0] : undefined;
  }

  add(...requirements: Requirement[]): Selector {
    return new RequirementsSelector([...this.requirements(), ...requirements]);
  }
}

class NothingSelector implements Selector {
  matches(): boolean {
    return false;
  }
  empty(): boolean {
    return false;
  }
  requirements(): readonly Requirement[] {
    return [];
  }
  toString(): string {
    return '';
  }
  // Adding conditions to a selector that matches nothing still matches nothing.
  add(): Selector {
    return this;
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
}

const everythingSelector: Selector = new RequirementsSelector([]);
const nothingSelector: Selector = new NothingSelector();

/** The selector that matches every object (the empty selector, string form `''`). */
export function everything(): Selector {
  return everythingSelector;
}

/** The selector that matches no object (what a nil `metav1.LabelSelector` means). */
export function nothing(): Selector {
  return nothingSelector;
}

/**
 * A selector requiring every `key=value` pair of `set`; `{}` or `undefined` gives
 * {@link everything}.
 *
 * @throws {SelectorParseError} for an invalid key or value.
 */
export function selectorFromSet(set: Readonly<Record<string, string>> | undefined): Selector {
  if (!set) return everythingSelector;
  const requirements = Object.entries(set).map(
    ([key, value]) => new Requirement(key, '=', [value]),
  );
  return requirements.length === 0 ? everythingSelector : new RequirementsSelector(requirements);
}

const selectorOperatorFor: Readonly<Record<LabelSelectorOperator, SelectionOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Converts a `metav1.LabelSelector` as found in API objects into a {@link Selector}, as
 * client-go's `LabelSelectorAsSelector`: `null`/`undefined` matches nothing, `{}` (no
 * labels, no expressions) matches everything.
 *
 * @throws {SelectorParseError} for an unknown operator, `In`/`NotIn` without values,
 *   `Exists`/`DoesNotExist` with values, or an invalid key or value.
 */
export function labelSelectorAsSelector(selector: LabelSelector | null | undefined): Selector {
  if (selector === null || selector === undefined) return nothingSelector;
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    requirements.push(new Requirement(key, '=', [value]));
  }
  for (const expression of selector.matchExpressions ?? []) {
    const operator = Object.hasOwn(selectorOperatorFor, expression.operator)
      ? selectorOperatorFor[expression.operator as LabelSelectorOperator]
      : undefined;
    if (operator === undefined) {
      throw new SelectorParseError(
        `${JSON.stringify(expression.operator)} is not a valid label selector operator (expected In, NotIn, Exists or DoesNotExist)`,
      );
    }
    requirements.push(new Requirement(expression.key, operator, expression.values ?? []));
  }
  return requirements.length === 0 ? everythingSelector : new RequirementsSelector(requirements);
}

type TokenKind =
  | 'identifier'
  | 'in'
  | 'notin'
  | '='
  | '=='
  | '!='
  | '!'
  | '>'
  | '<'
  | '('
  | ')'
  | ','
  | 'end';

interface Token {
  kind: TokenKind;
  text: string;
  position: number;
}

// Characters that end an identifier; everything else (except whitespace) may be part of
// one, and key/value validation rejects what is not allowed, with a precise message.
const specialCharacters = new Set(['=', '!', '(', ')', ',', '>', '<']);
const whitespace = /\s/;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i] ?? '';
    if (whitespace.test(ch)) {
      i++;
      continue;
    }
    if (specialCharacters.has(ch)) {
      const pair = input.slice(i, i + 2);
      if (pair === '==' || pair === '!=') {
        tokens.push({ kind: pair, text: pair, position: i });
        i += 2;
      } else {
        tokens.push({ kind: ch as TokenKind, text: ch, position: i });
        i++;
      }
      continue;
    }
    const start = i;
    while (
      i < input.length &&
      !whitespace.test(input[i] ?? '') &&
      !specialCharacters.has(input[i] ?? '')
    ) {
      i++;
    }
    const text = input.slice(start, i);
    const kind: TokenKind = text === 'in' ? 'in' : text === 'notin' ? 'notin' : 'identifier';
    tokens.push({ kind, text, position: start });
  }
  tokens.push({ kind: 'end', text: '', position: input.length });
  return tokens;
}

class SelectorParser {
  readonly #input: string;
  readonly #tokens: Token[];
  #next = 0;

  constructor(input: string) {
    this.#input = input;
    this.#tokens = tokenize(input);
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    if (this.#peek().kind === 'end') return requirements;
    for (;;) {
      requirements.push(this.#requirement());
      const separator = this.#take();
      if (separator.kind === 'end') return requirements;
      if (separator.kind !== ',') this.#fail(separator, "expected ',' or end of selector");
    }
  }

  #requirement(): Requirement {
    const first = this.#take();
    // A key is read as a value is, so `in` and `notin` are keys too, as in client-go.
    if (first.kind === '!') {
      const key = this.#take();
      if (!isValueToken(key)) this.#fail(key, "expected a label key after '!'");
      return this.#build(key, '!', []);
    }
    if (!isValueToken(first)) this.#fail(first, "expected a label key or '!'");
    const operator = this.#peek();
    switch (operator.kind) {
      case ',':
      case 'end':
        return this.#build(first, 'exists', []);
      case '=':
      case '==':
      case '!=': {
        this.#take();
        return this.#build(first, operator.kind, [this.#exactValue()]);
      }
      case '>':
      case '<': {
        this.#take();
        const value = this.#take();
        if (!isValueToken(value)) this.#fail(value, `expected an integer after '${operator.text}'`);
        return this.#build(first, operator.kind === '>' ? 'gt' : 'lt', [value.text]);
      }
      case 'in':
      case 'notin': {
        this.#take();
        return this.#build(first, operator.kind, this.#valueList());
      }
      default:
        return this.#fail(
          operator,
          "expected '=', '==', '!=', 'in', 'notin', '>', '<', ',' or end of selector after a label key",
        );
    }
  }

  // `key=` with nothing after it compares against the empty value, as in client-go.
  #exactValue(): string {
    const value = this.#peek();
    if (value.kind === ',' || value.kind === 'end') return '';
    this.#take();
    if (!isValueToken(value)) this.#fail(value, 'expected a label value');
    return value.text;
  }

  // `(a,b)`; an empty slot (`(a,)`, `(,a)`) is the empty value, and so is `()`, as
  // client-go reads them.
  #valueList(): string[] {
    const open = this.#take();
    if (open.kind !== '(') this.#fail(open, "expected '('");
    const values: string[] = [];
    if (this.#peek().kind === ')') {
      this.#take();
      return [''];
    }
    for (;;) {
      const token = this.#peek();
      if (isValueToken(token)) {
        this.#take();
        values.push(token.text);
      } else {
        values.push('');
      }
      const after = this.#take();
      if (after.kind === ')') return values;
      if (after.kind !== ',') this.#fail(after, "expected ',' or ')'");
    }
  }

  #build(keyToken: Token, operator: SelectionOperator, values: string[]): Requirement {
    try {
      return new Requirement(keyToken.text, operator, values);
    } catch (error) {
      if (error instanceof SelectorParseError) this.#fail(keyToken, error.message, error);
      throw error;
    }
  }

  #peek(): Token {
    return this.#tokens[this.#next] ?? this.#endToken();
  }

  #take(): Token {
    const token = this.#peek();
    if (this.#next < this.#tokens.length) this.#next++;
    return token;
  }

  #endToken(): Token {
    return { kind: 'end', text: '', position: this.#input.length };
  }

  #fail(token: Token, problem: string, cause?: unknown): never {
    const found = token.kind === 'end' ? '' : `found ${JSON.stringify(token.text)}, `;
    const detail = cause === undefined ? `${found}${problem}` : problem;
    throw new SelectorParseError(
      `invalid label selector ${JSON.stringify(this.#input)}: ${detail} at position ${token.position}`,
      { input: this.#input, position: token.position, cause },
    );
  }
}

// In key and value position the keywords are plain words: `in in (a)`, `env=in` and
// `x in (notin)` are valid.
function isValueToken(token: Token): boolean {
  return token.kind === 'identifier' || token.kind === 'in' || token.kind === 'notin';
}

/**
 * Parses a label selector string as `kubectl -l` and `?labelSelector=` take it:
 * comma-separated requirements, each `key=value`, `key==value`, `key!=value`,
 * `key in (a,b)`, `key notin (a,b)`, `key` (exists), `!key` (does not exist), `key>n` or
 * `key<n`; whitespace between tokens is ignored. `''` gives {@link everything}.
 * Requirements are sorted by key, so `toString()` is canonical.
 *
 * @throws {SelectorParseError} naming the offending token and its position, e.g.
 *   `invalid label selector "app in (a": expected ',' or ')' at position 9`, or the invalid
 *   key or value.
 */
export function parseSelector(selector: string): Selector {
  const requirements = new SelectorParser(selector).parse();
  return requirements.length === 0 ? everythingSelector : new RequirementsSelector(requirements);
}
