import type { HasObjectMeta } from '@kubets/apimachinery';
import { thrownBy } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import {
  and,
  annotationsChanged,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  not,
  objectPredicate,
  or,
  type Predicate,
  predicateFuncs,
  resourceVersionChanged,
} from './index.js';

const obj = (meta: NonNullable<HasObjectMeta['metadata']>): HasObjectMeta => ({
  metadata: { name: 'o', ...meta },
});
const update = (p: Predicate<HasObjectMeta>, o: HasObjectMeta, n: HasObjectMeta) =>
  p.update({ objectOld: o, objectNew: n });

// controller-runtime's predicate_test.go cases, as data: [name, old metadata, new metadata, passes].
type Meta = NonNullable<HasObjectMeta['metadata']>;
const cases = (...rows: [string, Meta, Meta, boolean][]) =>
  rows.map(([name, o, n, passes]) => ({ name, o: obj(o), n: obj(n), passes }));

describe.each([
  {
    predicate: 'generationChanged',
    p: generationChanged,
    cases: cases(
      ['same generation', { generation: 1 }, { generation: 1, resourceVersion: '2' }, false],
      ['new generation', { generation: 1 }, { generation: 2 }, true],
      ['no generation (ConfigMap)', { resourceVersion: '1' }, { resourceVersion: '2' }, false],
    ),
  },
  {
    predicate: 'labelsChanged',
    p: labelsChanged,
    cases: cases(
      ['same labels', { labels: { a: '1' } }, { labels: { a: '1' } }, false],
      ['no labels either side', {}, { labels: {} }, false],
      ['a label added', { labels: { a: '1' } }, { labels: { a: '1', b: '2' } }, true],
      ['a label changed', { labels: { a: '1' } }, { labels: { a: '2' } }, true],
      ['a label removed', { labels: { a: '1', b: '2' } }, { labels: { b: '2' } }, true],
    ),
  },
  {
    predicate: 'annotationsChanged',
    p: annotationsChanged,
    cases: cases(
      ['same annotations', { annotations: { a: '1' } }, { annotations: { a: '1' } }, false],
      ['an annotation added', {}, { annotations: { a: '1' } }, true],
      ['an annotation changed', { annotations: { a: '1' } }, { annotations: { a: '2' } }, true],
    ),
  },
  {
    predicate: 'resourceVersionChanged',
    p: resourceVersionChanged,
    cases: cases(
      [
        'a resync (same resourceVersion)',
        { resourceVersion: '7' },
        { resourceVersion: '7' },
        false,
      ],
      ['a change', { resourceVersion: '7' }, { resourceVersion: '8' }, true],
    ),
  },
])('$predicate', ({ p, cases }) => {
  it.each(cases)('update: $name → $passes', ({ o, n, passes }) => {
    expect(update(p, o, n)).toBe(passes);
  });

  it('lets create, delete and generic events through', () => {
    const object = obj({});
    expect(p.create({ object })).toBe(true);
    expect(p.delete({ object, deleteStateUnknown: false })).toBe(true);
    expect(p.generic({ object })).toBe(true);
  });
});

describe('custom predicates and combinations', () => {
  const labelled = obj({ labels: { app: 'web' } });
  const other = obj({ labels: { app: 'db' } });

  it('predicateFuncs lets missing kinds of event through', () => {
    const p = predicateFuncs<HasObjectMeta>({ create: () => false });
    expect(p.create({ object: labelled })).toBe(false);
    expect(update(p, labelled, other)).toBe(true);
    expect(p.delete({ object: labelled, deleteStateUnknown: true })).toBe(true);
    expect(p.generic({ object: labelled })).toBe(true);
  });

  it('objectPredicate and labelSelectorPredicate filter every event, updates by the new object', () => {
    for (const p of [
      labelSelectorPredicate('app=web'),
      objectPredicate((o: HasObjectMeta) => o.metadata?.labels?.app === 'web'),
    ]) {
      expect(p.create({ object: labelled })).toBe(true);
      expect(p.create({ object: other })).toBe(false);
      expect(update(p, other, labelled)).toBe(true);
      expect(update(p, labelled, other)).toBe(false);
      expect(p.delete({ object: other, deleteStateUnknown: false })).toBe(false);
      expect(p.generic({ object: labelled })).toBe(true);
    }
  });

  it('labelSelectorPredicate refuses a selector that does not parse', () => {
    expect(thrownBy(() => labelSelectorPredicate('app in (web'))).toBeInstanceOf(Error);
  });

  it.each([
    {
      name: 'and: both',
      p: and(generationChanged, labelsChanged),
      gen: 2,
      app: 'db',
      passes: true,
    },
    {
      name: 'and: one only',
      p: and(generationChanged, labelsChanged),
      gen: 1,
      app: 'db',
      passes: false,
    },
    { name: 'and of none', p: and<HasObjectMeta>(), gen: 1, app: 'web', passes: true },
    { name: 'or: one', p: or(generationChanged, labelsChanged), gen: 1, app: 'db', passes: true },
    {
      name: 'or: none changed',
      p: or(generationChanged, labelsChanged),
      gen: 1,
      app: 'web',
      passes: false,
    },
    { name: 'or of none', p: or<HasObjectMeta>(), gen: 2, app: 'db', passes: false },
    { name: 'not', p: not(generationChanged), gen: 1, app: 'web', passes: true },
    { name: 'not, changed', p: not(generationChanged), gen: 2, app: 'web', passes: false },
  ])('$name', ({ p, gen, app, passes }) => {
    const before = obj({ generation: 1, labels: { app: 'web' } });
    const after = obj({ generation: gen, labels: { app } });
    expect(update(p, before, after)).toBe(passes);
  });

  it('not inverts create, delete and generic too', () => {
    const never = not(predicateFuncs<HasObjectMeta>({}));
    expect(never.create({ object: labelled })).toBe(false);
    expect(never.delete({ object: labelled, deleteStateUnknown: false })).toBe(false);
    expect(never.generic({ object: labelled })).toBe(false);
  });

  it('and/or refuse something that is not a predicate, naming what it lacks', () => {
    const partial = { create: () => true } as unknown as Predicate<HasObjectMeta>;
    expect(String(thrownBy(() => and(generationChanged, partial)))).toContain(
      'predicate 1 is not a predicate: it has no update, delete, generic function',
    );
  });
});
