import type { KubeObject } from './meta.js';
import { TermConjunction } from './selector-terms.js';

/** How a {@link FieldRequirement} compares a field: `=`/`==` equal, `!=` not equal. */
export type FieldOperator = '=' | '==' | '!=';

/** One `field=value` / `field!=value` term of a field selector. */
export interface FieldRequirement {
  /** The field path, e.g. `metadata.name` or `spec.nodeName`. */
  readonly field: string;
  /** How the field is compared with `value`. */
  readonly operator: FieldOperator;
  /** The value, unescaped. */
  readonly value: string;
}

/** Field values to match against, keyed by field path (`metadata.name`, `spec.nodeName`, ...). */
export type Fields = Readonly<Record<string, string>>;

/**
 * A field selector was malformed. The message names the term (or escape sequence) at
 * fault and, for parsed strings, its 0-based position.
 */
export class FieldSelectorParseError extends Error {
  /** The whole selector string, when the error came from parsing one. */
  readonly input: string | undefined;
  /** 0-based offset into {@link input} where the problem was found. */
  readonly position: number | undefined;

  constructor(message: string, options?: { input?: string; position?: number }) {
    super(message);
    this.name = 'FieldSelectorParseError';
    this.input = options?.input;
    this.position = options?.position;
  }
}

/**
 * A parsed field selector: all terms must hold. As in Kubernetes a field missing from the
 * field set compares as `''`, so `spec.nodeName=` selects unscheduled pods.
 */
export interface FieldSelector {
  /** Whether every term holds for `fields`. */
  matches(fields: Fields): boolean;
  /** True when there are no terms (matches everything). */
  empty(): boolean;
  /** The terms, in the order given. */
  requirements(): readonly FieldRequirement[];
  /** The string form, values escaped, terms joined with `,`. */
  toString(): string;
  /** The value `field` must equal for this selector to match, or `undefined` if none is pinned. */
  requiresExactMatch(field: string): string | undefined;
}

class TermsFieldSelector
  extends TermConjunction<FieldRequirement, Fields>
  implements FieldSelector
{
  constructor(terms: readonly FieldRequirement[]) {
    super(terms.map((term) => Object.freeze({ ...term })));
  }

  protected termMatches({ field, operator, value }: FieldRequirement, fields: Fields): boolean {
    const actual = Object.hasOwn(fields, field) ? (fields[field] ?? '') : '';
    return (actual === value) === (operator !== '!=');
  }

  protected termString({ field, operator, value }: FieldRequirement): string {
    return `${field}${operator}${escapeFieldValue(value)}`;
  }

  protected pinnedValue(term: FieldRequirement, field: string): string | undefined {
    return term.field === field && term.operator !== '!=' ? term.value : undefined;
  }
}

const everythingFields: FieldSelector = new TermsFieldSelector([]);

/** The field selector with no terms, matching everything. */
export function everythingFieldSelector(): FieldSelector {
  return everythingFields;
}

/**
 * A field selector requiring `field=value` for every entry of `set`, sorted by field so
 * the string form is stable; `{}` or `undefined` gives an empty selector. An empty field
 * name is kept, as client-go keeps it (no object has such a field).
 */
export function fieldSelectorFromSet(set: Fields | undefined): FieldSelector {
  if (!set) return everythingFields;
  const fields = Object.keys(set).sort();
  return new TermsFieldSelector(
    fields.map((field) => ({ field, operator: '=' as const, value: set[field] ?? '' })),
  );
}

/** Escapes `\`, `,` and `=` in a field selector value with a backslash. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

/**
 * Undoes {@link escapeFieldValue}.
 *
 * @throws {FieldSelectorParseError} for an unknown escape (`\x`), a trailing `\`, or an
 *   unescaped `,` or `=`.
 */
export function unescapeFieldValue(value: string): string {
  return unescapeAt(value, value, 0);
}

function unescapeAt(value: string, input: string, offset: number): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '\\') {
      const next = value[i + 1];
      if (next === '\\' || next === ',' || next === '=') {
        out += next;
        i++;
        continue;
      }
      const sequence = next === undefined ? '\\' : `\\${next}`;
      throw new FieldSelectorParseError(
        `invalid field selector ${JSON.stringify(input)}: invalid escape sequence ${JSON.stringify(sequence)} at position ${offset + i} (only \\\\, \\, and \\= are allowed)`,
        { input, position: offset + i },
      );
    }
    if (ch === ',' || ch === '=') {
      throw new FieldSelectorParseError(
        `invalid field selector ${JSON.stringify(input)}: unescaped ${JSON.stringify(ch)} in a value at position ${offset + i} (escape it as "\\${ch}")`,
        { input, position: offset + i },
      );
    }
    out += ch;
  }
  return out;
}

// Splits at commas not preceded by an escaping backslash, keeping each piece's offset.
function splitTerms(input: string): { text: string; position: number }[] {
  const terms: { text: string; position: number }[] = [];
  let start = 0;
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch === '\\') {
      i++;
    } else if (ch === ',') {
      terms.push({ text: input.slice(start, i), position: start });
      start = i + 1;
    }
  }
  terms.push({ text: input.slice(start), position: start });
  return terms;
}

/**
 * Parses a field selector as `kubectl --field-selector` and `?fieldSelector=` take it:
 * comma-separated `field=value`, `field==value` or `field!=value` terms. In values, `\,`,
 * `\=` and `\\` stand for `,`, `=` and `\`. As in client-go, terms are sorted (so the
 * string form is canonical), empty terms are skipped, and whitespace is not trimmed: it is
 * part of the field or value. `''` gives an empty selector.
 *
 * @throws {FieldSelectorParseError} for a term without an operator, a bad escape or an unescaped `,`/`=` in a value.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const terms: FieldRequirement[] = [];
  const pieces = splitTerms(selector).sort((a, b) =>
    a.text < b.text ? -1 : a.text > b.text ? 1 : 0,
  );
  for (const { text, position } of pieces) {
    if (text === '') continue;
    // The leftmost operator wins; at one spot `!=` and `==` beat `=`.
    const at = text.search(/!=|==|=/);
    if (at === -1) {
      throw new FieldSelectorParseError(
        `invalid field selector ${JSON.stringify(selector)}: term ${JSON.stringify(text)} at position ${position} has no operator (expected '=', '==' or '!=')`,
        { input: selector, position },
      );
    }
    const operator: FieldOperator = text.startsWith('!=', at)
      ? '!='
      : text.startsWith('==', at)
        ? '=='
        : '=';
    // An empty field name parses, as in client-go: `=x` is the field "" equal to "x".
    const field = text.slice(0, at);
    const valueStart = at + operator.length;
    const value = unescapeAt(text.slice(valueStart), selector, position + valueStart);
    terms.push({ field, operator, value });
  }
  return terms.length === 0 ? everythingFields : new TermsFieldSelector(terms);
}

/**
 * The field set of an object for client-side field selection: `metadata.name` and
 * `metadata.namespace` always (`''` when absent), plus each dotted path in `extraPaths`
 * (e.g. `spec.nodeName`, `status.phase`) whose value is a string, number or boolean,
 * formatted as the API server would compare it. Paths that do not resolve are left out,
 * so they compare as `''`.
 */
export function fieldsFromObject(obj: KubeObject, extraPaths: readonly string[] = []): Fields {
  const fields: Record<string, string> = {
    'metadata.name': obj.metadata?.name ?? '',
    'metadata.namespace': obj.metadata?.namespace ?? '',
  };
  for (const path of extraPaths) {
    const value = valueAtPath(obj, path);
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      fields[path] = String(value);
    }
  }
  return fields;
}

function valueAtPath(root: unknown, path: string): unknown {
  let current = root;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
