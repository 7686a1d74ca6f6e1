import { describe, expect, it } from 'vitest';
import { builtinResources, definitionFromCrd } from './resources.js';
import { ApiError } from './status.js';
import { negotiateTable, parseIncludeObject, printerFor } from './table.js';
import { formatLabelSelector, humanDuration } from './table-format.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('humanDuration', () => {
  it.each([
    [-2 * SECOND, '<invalid>'],
    [-SECOND, '0s'],
    [0, '0s'],
    [119 * SECOND, '119s'],
    [2 * MINUTE, '2m'],
    [3 * MINUTE + 20 * SECOND, '3m20s'],
    [10 * MINUTE + 5 * SECOND, '10m'],
    [179 * MINUTE, '179m'],
    [3 * HOUR, '3h'],
    [5 * HOUR + 7 * MINUTE, '5h7m'],
    [8 * HOUR + 7 * MINUTE, '8h'],
    [47 * HOUR, '47h'],
    [2 * DAY, '2d'],
    [3 * DAY + 4 * HOUR, '3d4h'],
    [8 * DAY + 4 * HOUR, '8d'],
    [729 * DAY, '729d'],
    [2 * 365 * DAY, '2y'],
    [3 * 365 * DAY + 10 * DAY, '3y10d'],
    [9 * 365 * DAY + 10 * DAY, '9y'],
  ])('%d ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('formatLabelSelector', () => {
  it('sorts requirements by key and writes each operator as a selector string does', () => {
    expect(
      formatLabelSelector({
        matchLabels: { b: '2' },
        matchExpressions: [
          { key: 'd', operator: 'DoesNotExist' },
          { key: 'a', operator: 'NotIn', values: ['y', 'x'] },
          { key: 'c', operator: 'Exists' },
        ],
      }),
    ).toBe('a notin (x,y),b=2,c,!d');
    expect(formatLabelSelector({})).toBe('');
    expect(formatLabelSelector(undefined)).toBe('');
  });
});

describe('negotiateTable', () => {
  it('takes the first media range it can serve', () => {
    expect(negotiateTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json')).toBe(
      'v1',
    );
    expect(negotiateTable('application/json;as=Table;v=v1beta1;g=meta.k8s.io')).toBe('v1beta1');
    expect(negotiateTable('application/json, application/json;as=Table;v=v1;g=meta.k8s.io')).toBe(
      undefined,
    );
    expect(negotiateTable('application/json;as=Table;v=v2;g=meta.k8s.io,application/json')).toBe(
      undefined,
    );
    expect(negotiateTable(undefined)).toBe(undefined);
  });

  it('answers 406 when every range asks for a Table version it does not serve', () => {
    expect(() => negotiateTable('application/json;as=Table;v=v2;g=meta.k8s.io')).toThrow(ApiError);
  });

  it('refuses an unknown includeObject with 400', () => {
    expect(parseIncludeObject(null)).toBe('Metadata');
    expect(() => parseIncludeObject('Everything')).toThrow(
      /supported values: "Metadata", "None", "Object"/,
    );
  });
});

describe('printerFor', () => {
  const now = Date.parse('2026-01-01T00:10:00Z');
  const metadata = { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' };

  it('gives a built-in resource its columns, and one without a printer Name and Created At', () => {
    const byName = (name: string) =>
      builtinResources().find((d) => d.resource === name) ?? expect.fail(name);
    expect(
      printerFor(byName('configmaps'), undefined).row({ metadata, data: { a: '' } }, now),
    ).toEqual({
      cells: ['x', 1, '10m'],
    });
    const crds = printerFor(byName('customresourcedefinitions'), undefined);
    expect(crds.columns.map((c) => c.name)).toEqual(['Name', 'Created At']);
    expect(crds.row({ metadata }, now).cells).toEqual(['x', '2026-01-01T00:00:00Z']);
  });

  it('fills a CRD’s columns by type, null when the value is missing or of another type', () => {
    const definition =
      definitionFromCrd({
        spec: {
          group: 'g.test',
          names: { plural: 'things', kind: 'Thing' },
          versions: [{ name: 'v1', served: true }],
        },
      }) ?? expect.fail('no definition');
    const printer = printerFor(definition, {
      additionalPrinterColumns: [
        { name: 'N', type: 'integer', jsonPath: '.spec.n' },
        { name: 'F', type: 'number', jsonPath: '.spec.f' },
        { name: 'S', type: 'string', jsonPath: '.spec.list[1]' },
        { name: 'O', type: 'string', jsonPath: '.spec.obj' },
        { name: 'B', type: 'boolean', jsonPath: '.spec.n' },
        { name: 'When', type: 'date', jsonPath: '.spec.when' },
      ],
    });
    const row = printer.row(
      {
        metadata,
        spec: { n: 2.7, f: 1.5, list: ['a', 'b'], obj: { k: 1 }, when: '2026-01-01T00:09:00Z' },
      },
      now,
    );
    expect(row.cells).toEqual(['x', 2, 1.5, 'b', '{"k":1}', null, '60s']);
    expect(printerFor(definition, undefined).columns.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
  });
});
