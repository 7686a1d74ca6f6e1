// client-go's util/consistencydetector/data_consistency_detector_test.go, ported case by
// case: each test keeps the Go test's name, inputs and expectations ("panics" is a rejection
// with DataInconsistencyError).

import type { ListQueryOptions, ObjectList } from '@kubets/apimachinery';
import { FakeClock } from '@kubets/apimachinery/testing';
import { describe, expect, it } from 'vitest';
import { listOf, stepThrough } from '../test/helpers.js';
import { checkDataConsistency, DataInconsistencyError } from './data-consistency-detector.js';

interface Obj {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; uid?: string; resourceVersion?: string };
}

const makePod = (name: string, rv: string): Obj => ({
  metadata: { name, uid: `uid-${name}`, resourceVersion: rv },
});
const makeUnstructuredObject = (version: string, kind: string, name: string): Obj => ({
  apiVersion: version,
  kind,
  metadata: { name, uid: `uid-${name}` },
});

/** client-go's `listWrapper`: answers every list with `response`, recording the options. */
function listWrapper(response: ObjectList<Obj>) {
  const requestOptions: ListQueryOptions[] = [];
  return {
    requestOptions,
    list: async (options: ListQueryOptions) => {
      requestOptions.push(options);
      return structuredClone(response);
    },
  };
}

const threePods = () => [makePod('p1', '1'), makePod('p2', '2'), makePod('p3', '3')];

/** A consistent scenario of three pods at resourceVersion 2, asked with `requestOptions`. */
const threePodsAtRV2 = (requestOptions: ListQueryOptions, expected: ListQueryOptions) => ({
  lastSyncedResourceVersion: '2',
  listResponse: listOf(threePods(), '2'),
  requestOptions,
  retrievedItems: threePods(),
  expectedRequestOptions: [expected],
});

const exact = (extra: ListQueryOptions = {}): ListQueryOptions => ({
  ...extra,
  resourceVersion: '2',
  resourceVersionMatch: 'Exact',
});

describe('client-go data_consistency_detector_test.go', () => {
  it.each<{
    name: string;
    lastSyncedResourceVersion?: string;
    listResponse?: ObjectList<Obj>;
    retrievedItems?: Obj[];
    requestOptions: ListQueryOptions;
    expectedRequestOptions: ListQueryOptions[];
    expectPanic?: boolean;
  }>([
    {
      name: "data consistency check won't panic when data is consistent",
      lastSyncedResourceVersion: '2',
      listResponse: listOf([makePod('p1', '1'), makePod('p2', '2')], '2'),
      requestOptions: { timeoutSeconds: 39 },
      retrievedItems: [makePod('p1', '1'), makePod('p2', '2')],
      expectedRequestOptions: [exact({ timeoutSeconds: 39 })],
    },
    {
      name: 'data consistency check works with unstructured data (dynamic client)',
      lastSyncedResourceVersion: '2',
      listResponse: {
        apiVersion: 'vTest',
        kind: 'rTestList',
        metadata: {},
        items: [
          makeUnstructuredObject('vTest', 'rTest', 'item1'),
          makeUnstructuredObject('vTest', 'rTest', 'item2'),
        ],
      },
      requestOptions: { timeoutSeconds: 39 },
      retrievedItems: [
        makeUnstructuredObject('vTest', 'rTest', 'item1'),
        makeUnstructuredObject('vTest', 'rTest', 'item2'),
      ],
      expectedRequestOptions: [exact({ timeoutSeconds: 39 })],
    },
    {
      name: "legacy, the limit is removed from the list options when it wasn't honored by the watch cache",
      ...threePodsAtRV2({ resourceVersion: '0', limit: 2 }, exact()),
    },
    {
      name: 'the limit is NOT removed from the list options for non-legacy request',
      ...threePodsAtRV2({ resourceVersion: '2', limit: 2 }, exact({ limit: 2 })),
    },
    {
      name: 'legacy, the limit is NOT removed from the list options when the watch cache is disabled',
      ...threePodsAtRV2({ resourceVersion: '0', limit: 5 }, exact({ limit: 5 })),
    },
    {
      name: "data consistency check won't panic when there is no data",
      lastSyncedResourceVersion: '2',
      listResponse: listOf([], '2'),
      requestOptions: { timeoutSeconds: 39 },
      expectedRequestOptions: [exact({ timeoutSeconds: 39 })],
    },
    {
      name: "data consistency check won't be performed when Continuation was set",
      requestOptions: { continue: 'fake continuation token' },
      expectedRequestOptions: [],
    },
    {
      name: "data consistency check won't be performed when ResourceVersion was set to 0",
      lastSyncedResourceVersion: '0',
      listResponse: listOf([makePod('p1', '1'), makePod('p2', '2')], '0'),
      requestOptions: {},
      expectedRequestOptions: [],
    },
    {
      name: 'data consistency panics when data is inconsistent',
      lastSyncedResourceVersion: '2',
      listResponse: listOf(threePods(), '2'),
      requestOptions: { timeoutSeconds: 39 },
      retrievedItems: [makePod('p1', '1'), makePod('p2', '2')],
      expectedRequestOptions: [exact({ timeoutSeconds: 39 })],
      expectPanic: true,
    },
  ])('TestDataConsistencyChecker: $name', async (scenario) => {
    const fakeLister = listWrapper(scenario.listResponse ?? listOf([], ''));
    const checking = checkDataConsistency(
      {
        lastSyncedResourceVersion: scenario.lastSyncedResourceVersion ?? '',
        list: fakeLister.list,
        listOptions: scenario.requestOptions,
        retrievedItems: () => scenario.retrievedItems ?? [],
      },
      new AbortController().signal,
    );
    if (scenario.expectPanic) await expect(checking).rejects.toThrow(DataInconsistencyError);
    else await expect(checking).resolves.toBeUndefined();
    expect(fakeLister.requestOptions).toEqual(scenario.expectedRequestOptions);
  });

  it('TestDataConsistencyCheckerRetry', async () => {
    // client-go's `errorLister`: fails until its fifth call.
    const stopErrorAfter = 5;
    let listCounter = 0;
    const clock = new FakeClock();
    const checking = checkDataConsistency(
      {
        lastSyncedResourceVersion: '',
        list: async () => {
          listCounter++;
          if (listCounter < stopErrorAfter) throw new Error('nope, try again');
          return listOf<Obj>([], '2');
        },
        retrievedItems: () => [],
        clock,
      },
      new AbortController().signal,
    );
    await stepThrough(clock, checking);
    expect(listCounter).toBe(stopErrorAfter);
  });
});
