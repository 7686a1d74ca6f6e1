import { describe, expect, it } from 'vitest';
import { itMatches } from '../test/selector-cases.js';
import { thrownBy } from '../test/thrown.js';
import {
  escapeFieldValue,
  everythingFieldSelector,
  FieldSelectorParseError,
  fieldSelectorFromSet,
  fieldsFromObject,
  parseFieldSelector,
  unescapeFieldValue,
} from './fields.js';

function parseError(selector: string): FieldSelectorParseError {
  return thrownBy(
    () => parseFieldSelector(selector),
    FieldSelectorParseError,
    JSON.stringify(selector),
  );
}

describe('parseFieldSelector', () => {
  const fields = { 'metadata.name': 'mypod', 'metadata.namespace': 'default', 'spec.nodeName': '' };

  itMatches(parseFieldSelector, fields, [
    ['metadata.name=mypod', true],
    ['metadata.name==mypod', true],
    ['metadata.name!=mypod', false],
    ['metadata.name=other', false],
    ['metadata.name=mypod,metadata.namespace=default', true],
    ['metadata.name=mypod,metadata.namespace!=default', false],
    ['spec.nodeName=', true],
    ['status.phase=', true],
    ['status.phase!=Running', true],
    ['', true],
    [',,', true],
  ]);

  it('sorts terms so the string form is canonical', () => {
    const selector = parseFieldSelector('spec.nodeName!=n1,metadata.name==a');
    expect(selector.toString()).toBe('metadata.name==a,spec.nodeName!=n1');
    expect(selector.requirements()).toEqual([
      { field: 'metadata.name', operator: '==', value: 'a' },
      { field: 'spec.nodeName', operator: '!=', value: 'n1' },
    ]);
  });

  it('unescapes values and escapes them again in toString', () => {
    const selector = parseFieldSelector('metadata.annotation=a\\,b\\=c\\\\d,x=y');
    expect(selector.requirements()[0]?.value).toBe('a,b=c\\d');
    expect(selector.matches({ 'metadata.annotation': 'a,b=c\\d', x: 'y' })).toBe(true);
    expect(selector.toString()).toBe('metadata.annotation=a\\,b\\=c\\\\d,x=y');
  });

  it('uses the leftmost operator, and != / == before =', () => {
    expect(parseFieldSelector('a!=b').requirements()[0]).toEqual({
      field: 'a',
      operator: '!=',
      value: 'b',
    });
    expect(parseFieldSelector('a==b').requirements()[0]?.operator).toBe('==');
    expect(() => parseFieldSelector('a=b=c')).toThrow(FieldSelectorParseError);
  });

  it('keeps whitespace as part of fields and values, as client-go does', () => {
    const selector = parseFieldSelector('a= b');
    expect(selector.matches({ a: ' b' })).toBe(true);
    expect(selector.matches({ a: 'b' })).toBe(false);
  });

  it('requiresExactMatch', () => {
    const selector = parseFieldSelector('metadata.name=a,spec.nodeName!=n1,x==y');
    const fields = ['metadata.name', 'x', 'spec.nodeName', 'other'];
    expect(fields.map((field) => selector.requiresExactMatch(field))).toEqual([
      'a',
      'y',
      undefined,
      undefined,
    ]);
  });

  it('empty', () => {
    expect(parseFieldSelector('').empty()).toBe(true);
    expect(parseFieldSelector('a=b').empty()).toBe(false);
    expect(everythingFieldSelector().matches({})).toBe(true);
    expect(everythingFieldSelector().toString()).toBe('');
  });

  describe('errors', () => {
    it('a term without an operator', () => {
      const err = parseError('a=b,nonsense');
      expect(err.message).toBe(
        `invalid field selector "a=b,nonsense": term "nonsense" at position 4 has no operator (expected '=', '==' or '!=')`,
      );
      expect(err.position).toBe(4);
      expect(err.input).toBe('a=b,nonsense');
    });

    it('a trailing backslash', () => {
      expect(parseError('a=x\\').message).toContain('invalid escape sequence "\\\\"');
    });

    it.each([
      ['an unknown escape sequence', 'a=x\\y', 'invalid escape sequence "\\\\y" at position 3', 3],
      ['an unescaped = in a value', 'z=1,a=b=c', 'unescaped "=" in a value at position 7', 7],
    ])('%s', (_what, selector, message, position) => {
      const err = parseError(selector);
      expect(err.message).toContain(message);
      expect(err.position).toBe(position);
    });
  });
});

describe('escaping', () => {
  it('round-trips', () => {
    for (const value of ['', 'plain', 'a,b', 'a=b', 'a\\b', '\\,=\\\\']) {
      expect(unescapeFieldValue(escapeFieldValue(value))).toBe(value);
    }
    expect(escapeFieldValue('a,b=c\\')).toBe('a\\,b\\=c\\\\');
  });

  it('unescapeFieldValue rejects bad input', () => {
    expect(() => unescapeFieldValue('a,b')).toThrow('unescaped ","');
    expect(() => unescapeFieldValue('a\\n')).toThrow('invalid escape sequence');
  });
});

describe('fieldSelectorFromSet', () => {
  it('builds sorted equality terms', () => {
    const selector = fieldSelectorFromSet({ 'metadata.namespace': 'ns', 'metadata.name': 'a,b' });
    expect(selector.toString()).toBe('metadata.name=a\\,b,metadata.namespace=ns');
    expect(selector.matches({ 'metadata.name': 'a,b', 'metadata.namespace': 'ns' })).toBe(true);
    expect(parseFieldSelector(selector.toString()).requirements()).toEqual(selector.requirements());
  });

  it('an empty or missing set is empty', () => {
    expect(fieldSelectorFromSet({}).empty()).toBe(true);
    expect(fieldSelectorFromSet(undefined).empty()).toBe(true);
  });

  it('keeps an empty field name, as client-go does', () => {
    expect(fieldSelectorFromSet({ '': 'x' }).toString()).toBe('=x');
    expect(parseFieldSelector('=b').requirements()).toEqual([
      { field: '', operator: '=', value: 'b' },
    ]);
    expect(parseFieldSelector('=b').matches({ '': 'b' })).toBe(true);
  });
});

describe('fieldsFromObject', () => {
  const pod = {
    metadata: { name: 'mypod', namespace: 'default' },
    spec: { nodeName: 'n1', priority: 5, hostNetwork: false, containers: [] },
    status: { phase: 'Running' },
  };

  it('always has metadata.name and metadata.namespace', () => {
    expect(fieldsFromObject(pod)).toEqual({
      'metadata.name': 'mypod',
      'metadata.namespace': 'default',
    });
    expect(fieldsFromObject({})).toEqual({ 'metadata.name': '', 'metadata.namespace': '' });
  });

  it('adds scalar values at extra paths and skips the rest', () => {
    const fields = fieldsFromObject(pod, [
      'spec.nodeName',
      'status.phase',
      'spec.priority',
      'spec.hostNetwork',
      'spec.containers',
      'spec.missing',
      'status.phase.length',
    ]);
    expect(fields).toEqual({
      'metadata.name': 'mypod',
      'metadata.namespace': 'default',
      'spec.nodeName': 'n1',
      'status.phase': 'Running',
      'spec.priority': '5',
      'spec.hostNetwork': 'false',
    });
    expect(parseFieldSelector('spec.nodeName=n1,status.phase!=Pending').matches(fields)).toBe(true);
  });
});
