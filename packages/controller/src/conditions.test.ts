import { thrownBy } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import {
  type Condition,
  type ConditionInput,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './index.js';

// apimachinery's meta/conditions_test.go, as data. Its bare `{Type: "first"}` entries are
// complete conditions here.
const hourBefore = '2026-11-24T05:00:00Z';
const hourAfter = '2026-11-24T07:00:00Z';
const now = new Date('2026-11-24T06:00:00.123Z');
const secondTrue = {
  type: 'second',
  status: 'True',
  reason: 'reason',
  message: 'message',
} as const;
const bare = (type: string, status: Condition['status'] = 'Unknown'): Condition => ({
  type,
  status,
  lastTransitionTime: hourBefore,
  reason: '',
  message: '',
});

describe('setStatusCondition', () => {
  const cases: {
    name: string;
    conditions: Condition[];
    toAdd: ConditionInput;
    changed: boolean;
    expected: Condition[];
  }[] = [
    {
      name: 'should-add',
      conditions: [bare('first'), bare('third')],
      toAdd: {
        type: 'second',
        status: 'True',
        lastTransitionTime: hourBefore,
        reason: 'reason',
        message: 'message',
      },
      changed: true,
      expected: [
        bare('first'),
        bare('third'),
        {
          type: 'second',
          status: 'True',
          lastTransitionTime: hourBefore,
          reason: 'reason',
          message: 'message',
        },
      ],
    },
    {
      name: 'use-supplied-time',
      conditions: [bare('first'), bare('second', 'False'), bare('third')],
      toAdd: { ...secondTrue, lastTransitionTime: hourAfter },
      changed: true,
      expected: [
        bare('first'),
        {
          type: 'second',
          status: 'True',
          lastTransitionTime: hourAfter,
          reason: 'reason',
          message: 'message',
        },
        bare('third'),
      ],
    },
    {
      name: 'update-fields (the transition time stays: the status did not change)',
      conditions: [bare('first'), bare('second', 'True'), bare('third')],
      toAdd: { ...secondTrue, lastTransitionTime: hourAfter, observedGeneration: 3 },
      changed: true,
      expected: [
        bare('first'),
        {
          type: 'second',
          status: 'True',
          lastTransitionTime: hourBefore,
          reason: 'reason',
          message: 'message',
          observedGeneration: 3,
        },
        bare('third'),
      ],
    },
    {
      name: 'nothing changes',
      conditions: [bare('type', 'True')],
      toAdd: {
        type: 'type',
        status: 'True',
        lastTransitionTime: hourBefore,
        reason: '',
        message: '',
      },
      changed: false,
      expected: [bare('type', 'True')],
    },
    {
      name: 'a new condition without a time gets now, in whole seconds',
      conditions: [],
      toAdd: { type: 'Ready', status: 'False', reason: 'Waiting', message: '' },
      changed: true,
      expected: [
        {
          type: 'Ready',
          status: 'False',
          lastTransitionTime: '2026-11-24T06:00:00Z',
          reason: 'Waiting',
          message: '',
        },
      ],
    },
    {
      name: 'a status change without a time moves the transition time to now',
      conditions: [bare('Ready', 'False')],
      toAdd: { type: 'Ready', status: 'True', reason: '', message: '' },
      changed: true,
      expected: [{ ...bare('Ready', 'True'), lastTransitionTime: '2026-11-24T06:00:00Z' }],
    },
  ];
  it.each(cases)('$name', ({ conditions, toAdd, changed, expected }) => {
    expect(setStatusCondition(conditions, toAdd, now)).toBe(changed);
    expect(conditions).toEqual(expected);
  });

  it.each([
    {
      condition: { type: '', status: 'True', reason: '', message: '' },
      message: 'condition type must be a non-empty string',
    },
    {
      condition: { type: 'Ready', status: 'true', reason: '', message: '' },
      message: 'condition Ready: status must be True, False or Unknown, got "true"',
    },
  ])('refuses $message', ({ condition, message }) => {
    const conditions: Condition[] = [];
    expect(
      String(thrownBy(() => setStatusCondition(conditions, condition as ConditionInput))),
    ).toContain(message);
    expect(conditions).toEqual([]);
  });
});

describe('removeStatusCondition', () => {
  it.each([
    {
      name: 'present',
      conditions: [bare('first'), bare('second'), bare('third')],
      type: 'second',
      removed: true,
      expected: [bare('first'), bare('third')],
    },
    {
      name: 'not-present',
      conditions: [bare('first'), bare('second'), bare('third')],
      type: 'fourth',
      removed: false,
      expected: [bare('first'), bare('second'), bare('third')],
    },
    { name: 'empty_conditions', conditions: [], type: 'Foo', removed: false, expected: [] },
  ])('$name', ({ conditions, type, removed, expected }) => {
    expect(removeStatusCondition(conditions, type)).toBe(removed);
    expect(conditions).toEqual(expected);
  });
});

describe('findStatusCondition and the status checks', () => {
  it('finds by type', () => {
    expect(findStatusCondition([bare('first')], 'second')).toBeUndefined();
    expect(findStatusCondition([bare('first'), bare('second')], 'second')).toEqual(bare('second'));
    expect(findStatusCondition(undefined, 'second')).toBeUndefined();
  });

  it.each([
    { name: 'doesnt-match-true', status: 'Unknown', asked: 'True', expected: false },
    { name: 'does-match-true', status: 'True', asked: 'True', expected: true },
    { name: 'does-match-false', status: 'False', asked: 'False', expected: true },
  ] as const)('$name', ({ status, asked, expected }) => {
    expect(isStatusConditionPresentAndEqual([bare('first', status)], 'first', asked)).toBe(
      expected,
    );
  });

  it('true and false need the condition present', () => {
    expect(isStatusConditionTrue([bare('Ready', 'True')], 'Ready')).toBe(true);
    expect(isStatusConditionFalse([bare('Ready', 'True')], 'Ready')).toBe(false);
    expect(isStatusConditionTrue([], 'Ready')).toBe(false);
    expect(isStatusConditionFalse(undefined, 'Ready')).toBe(false);
  });
});
