// controller-runtime's pkg/predicate/predicate_test.go, case by case: each `it` is named
// after the Go Describe/Context/It it ports, with the Go inputs and expectations kept.
// A missing object (Go's nil) is `undefined` here.
import type { HasObjectMeta, ObjectMeta } from '@kubets/apimachinery';
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
  type UpdateEvent,
} from './index.js';

const missing = undefined as unknown as HasObjectMeta;
const pod = (meta: ObjectMeta = {}): HasObjectMeta => ({
  metadata: { name: 'baz', namespace: 'biz', ...meta },
});

/** Create, delete and generic events with no object pass; what the update does is the case. */
function expectOnlyUpdate(
  instance: Predicate<HasObjectMeta>,
  update: UpdateEvent<HasObjectMeta>,
  expected: boolean,
) {
  expect(instance.create({ object: missing })).toBe(true);
  expect(instance.delete({ object: missing, deleteStateUnknown: false })).toBe(true);
  expect(instance.generic({ object: missing })).toBe(true);
  expect(instance.update(update)).toBe(expected);
}

describe('Predicate', () => {
  describe('Funcs', () => {
    const calls: string[] = [];
    const failingFuncs = predicateFuncs<HasObjectMeta>({
      create: () => {
        throw new Error('Did not expect CreateFunc to be called.');
      },
      update: () => {
        throw new Error('Did not expect UpdateFunc to be called.');
      },
      delete: () => {
        throw new Error('Did not expect DeleteFunc to be called.');
      },
      generic: () => {
        throw new Error('Did not expect GenericFunc to be called.');
      },
    });
    const newPod = pod({ name: 'baz2', namespace: 'biz2' });

    it.each([
      {
        kind: 'create' as const,
        event: { object: pod() },
      },
      {
        kind: 'update' as const,
        event: { objectOld: pod(), objectNew: newPod },
      },
      {
        kind: 'delete' as const,
        event: { object: pod(), deleteStateUnknown: false },
      },
      { kind: 'generic' as const, event: { object: pod() } },
    ])('should call $kind', ({ kind, event }) => {
      const call = (p: Predicate<HasObjectMeta>) =>
        (p[kind] as (e: typeof event) => boolean)(event);
      for (const result of [false, true]) {
        const instance = predicateFuncs<HasObjectMeta>({
          ...failingFuncs,
          [kind]: (e: typeof event) => {
            calls.push(kind);
            expect(e).toEqual(event);
            return result;
          },
        });
        expect(call(instance)).toBe(result);
      }
      const { [kind]: _left, ...others } = failingFuncs;
      expect(call(predicateFuncs<HasObjectMeta>(others))).toBe(true);
      expect(calls.splice(0)).toEqual([kind, kind]);
    });
  });

  describe('When checking a ResourceVersionChangedPredicate', () => {
    const instance = resourceVersionChanged;
    it.each([
      {
        name: "Where the old object doesn't have a ResourceVersion or metadata: should return false",
        update: { objectOld: missing, objectNew: pod({ resourceVersion: '1' }) },
        expected: false,
      },
      {
        name: "Where the new object doesn't have a ResourceVersion or metadata: should return false",
        update: { objectOld: pod({ resourceVersion: '1' }), objectNew: missing },
        expected: false,
      },
      {
        name: "Where the ResourceVersion hasn't changed: should return false",
        update: {
          objectOld: pod({ resourceVersion: 'v1' }),
          objectNew: pod({ resourceVersion: 'v1' }),
        },
        expected: false,
      },
      {
        name: 'Where the ResourceVersion has changed: should return true',
        update: {
          objectOld: pod({ resourceVersion: 'v2' }),
          objectNew: pod({ resourceVersion: 'v1' }),
        },
        expected: true,
      },
    ])('$name', ({ update, expected }) => expectOnlyUpdate(instance, update, expected));

    it('Where the objects or metadata are missing: should return false', () => {
      const oldPod = pod({ resourceVersion: 'v1' });
      const newPod = pod({ resourceVersion: 'v1' });
      expectOnlyUpdate(instance, { objectOld: oldPod, objectNew: missing }, false);
      expect(instance.update({ objectOld: missing, objectNew: newPod })).toBe(false);
      expect(instance.update({ objectOld: oldPod, objectNew: newPod })).toBe(false);
    });
  });

  describe('When checking a GenerationChangedPredicate', () => {
    const instance = generationChanged;
    it.each([
      {
        name: "Where the old object doesn't have a Generation or metadata: should return false",
        update: { objectOld: missing, objectNew: pod({ generation: 1 }) },
        expected: false,
      },
      {
        name: "Where the new object doesn't have a Generation or metadata: should return false",
        update: { objectOld: pod({ generation: 1 }), objectNew: missing },
        expected: false,
      },
      {
        name: "Where the Generation hasn't changed: should return false",
        update: { objectOld: pod({ generation: 1 }), objectNew: pod({ generation: 1 }) },
        expected: false,
      },
      {
        name: 'Where the Generation has changed: should return true',
        update: { objectOld: pod({ generation: 2 }), objectNew: pod({ generation: 1 }) },
        expected: true,
      },
    ])('$name', ({ update, expected }) => expectOnlyUpdate(instance, update, expected));

    it('Where the objects or metadata are missing: should return false', () => {
      const oldPod = pod({ generation: 1 });
      const newPod = pod({ generation: 1 });
      expectOnlyUpdate(instance, { objectOld: oldPod, objectNew: missing }, false);
      expect(instance.update({ objectOld: missing, objectNew: newPod })).toBe(false);
      expect(instance.update({ objectOld: oldPod, objectNew: newPod })).toBe(false);
    });
  });

  // The annotation and label cases are the same table, on a different map.
  type MapCase = {
    describe: string;
    instance: Predicate<HasObjectMeta>;
    field: 'annotations' | 'labels';
    what: string;
    base: Record<string, string>;
    changedValue: Record<string, string>;
    added: Record<string, string>;
  };
  describe.each<MapCase>([
    {
      describe: 'When checking an AnnotationChangedPredicate',
      instance: annotationsChanged,
      field: 'annotations',
      what: 'annotation',
      base: { booz: 'wooz' },
      changedValue: { booz: 'weez' },
      added: { booz: 'wooz', zooz: 'qooz' },
    },
    {
      describe: 'When checking a LabelChangedPredicate',
      instance: labelsChanged,
      field: 'labels',
      what: 'label',
      base: { foo: 'bar' },
      changedValue: { foo: 'bee' },
      added: { foo: 'bar', faa: 'bor' },
    },
  ])('$describe', ({ instance, field, what, base, changedValue, added }) => {
    const withMap = (map?: Record<string, string>) => pod(map ? { [field]: map } : {});
    it.each([
      {
        name: 'Where the old object is missing: should return false',
        update: { objectOld: missing, objectNew: withMap(base) },
        expected: false,
      },
      {
        name: 'Where the new object is missing: should return false',
        update: { objectOld: withMap(base), objectNew: missing },
        expected: false,
      },
      {
        name: `Where the ${what}s are empty: should return false`,
        update: { objectOld: withMap(), objectNew: withMap() },
        expected: false,
      },
      {
        name: `Where the ${what}s haven't changed: should return false`,
        update: { objectOld: withMap(base), objectNew: withMap({ ...base }) },
        expected: false,
      },
      {
        name: `Where an ${what} value has changed: should return true`,
        update: { objectOld: withMap(base), objectNew: withMap(changedValue) },
        expected: true,
      },
      {
        name: `Where an ${what} has been added: should return true`,
        update: { objectOld: withMap(base), objectNew: withMap(added) },
        expected: true,
      },
      {
        name: `Where an ${what} has been removed: should return true`,
        update: { objectOld: withMap(added), objectNew: withMap(base) },
        expected: true,
      },
    ])('$name', ({ update, expected }) => expectOnlyUpdate(instance, update, expected));
  });

  describe('With a boolean predicate', () => {
    const funcs = (pass: boolean) =>
      predicateFuncs<HasObjectMeta>({
        create: () => pass,
        update: () => pass,
        delete: () => pass,
        generic: () => pass,
      });
    const passFuncs = funcs(true);
    const failFuncs = funcs(false);
    const expectAll = (p: Predicate<HasObjectMeta>, expected: boolean) => {
      expect(p.create({ object: missing })).toBe(expected);
      expect(p.update({ objectOld: missing, objectNew: missing })).toBe(expected);
      expect(p.delete({ object: missing, deleteStateUnknown: false })).toBe(expected);
      expect(p.generic({ object: missing })).toBe(expected);
    };

    it.each([
      {
        name: 'When checking an And predicate: should return false when one of its predicates returns false',
        instance: () => and(passFuncs, failFuncs),
        expected: false,
      },
      {
        name: 'When checking an And predicate: should return true when all of its predicates return true',
        instance: () => and(passFuncs, passFuncs),
        expected: true,
      },
      {
        name: 'When checking an Or predicate: should return true when one of its predicates returns true',
        instance: () => or(passFuncs, failFuncs),
        expected: true,
      },
      {
        name: 'When checking an Or predicate: should return false when all of its predicates return false',
        instance: () => or(failFuncs, failFuncs),
        expected: false,
      },
      {
        name: 'When checking a Not predicate: should return false when its predicate returns true',
        instance: () => not(passFuncs),
        expected: false,
      },
      {
        name: 'When checking a Not predicate: should return true when its predicate returns false',
        instance: () => not(failFuncs),
        expected: true,
      },
    ])('$name', ({ instance, expected }) => expectAll(instance(), expected));
  });

  describe('NewPredicateFuncs with a namespace filter function', () => {
    const byNamespaceFilter = (namespace: string) => (object: HasObjectMeta) =>
      object.metadata?.namespace === namespace;
    const byNamespaceFuncs = objectPredicate(byNamespaceFilter('biz'));

    it('Where the namespace is matching: should return true', () => {
      const newPod = pod();
      const oldPod = pod();
      expect(byNamespaceFuncs.create({ object: newPod })).toBe(true);
      expect(byNamespaceFuncs.delete({ object: oldPod, deleteStateUnknown: false })).toBe(true);
      expect(byNamespaceFuncs.generic({ object: newPod })).toBe(true);
      expect(byNamespaceFuncs.update({ objectOld: oldPod, objectNew: newPod })).toBe(true);
    });

    it('Where the namespace is not matching: should return false', () => {
      const newPod = pod({ namespace: 'bizz' });
      const oldPod = pod();
      expect(byNamespaceFuncs.create({ object: newPod })).toBe(false);
      expect(byNamespaceFuncs.delete({ object: newPod, deleteStateUnknown: false })).toBe(false);
      expect(byNamespaceFuncs.generic({ object: newPod })).toBe(false);
      expect(byNamespaceFuncs.update({ objectOld: oldPod, objectNew: newPod })).toBe(false);
    });
  });

  describe('When checking a LabelSelectorPredicate', () => {
    const instance = labelSelectorPredicate({ matchLabels: { foo: 'bar' } });

    it.each([
      {
        name: 'When the Selector does not match the event labels: should return false',
        object: {} as HasObjectMeta,
        expected: false,
      },
      {
        name: 'When the Selector matches the event labels: should return true',
        object: { metadata: { labels: { foo: 'bar' } } },
        expected: true,
      },
    ])('$name', ({ object, expected }) => {
      expect(instance.create({ object })).toBe(expected);
      expect(instance.delete({ object, deleteStateUnknown: false })).toBe(expected);
      expect(instance.generic({ object })).toBe(expected);
      expect(instance.update({ objectOld: missing, objectNew: object })).toBe(expected);
    });
  });
});
