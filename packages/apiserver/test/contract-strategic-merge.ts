import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls, expectFailure } from './contract-helpers.js';

/**
 * Strategic merge patch as kube-apiserver 1.20 applies it (issue 18 item 6): the order of merged
 * lists, `$setElementOrder`, `$patch` directives, `$retainKeys`, lists of scalars with the
 * merge strategy (finalizers), and the answers to bad directives — 500 without a reason for the
 * errors it does not classify, 400 for the malformed directives it does.
 */

const SMP = 'application/strategic-merge-patch+json';

/** Registers the tests in the caller's describe block. */
export function defineStrategicMergeContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace } = contractCalls(getTarget);
  let count = 0;
  /** A Deployment with containers a, b and c; returns its URL. */
  const deployment = async (ns: string): Promise<string> => {
    const name = `d${++count}`;
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    await create(path, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: ['a', 'b', 'c'].map((n) => ({ name: n, image: 'i' })) },
        },
      },
    });
    return `${path}/${name}`;
  };
  const podSpec = (spec: object) => ({ spec: { template: { spec } } });
  const containers = (json: { spec: { template: { spec: { containers: object[] } } } }) =>
    json.spec.template.spec.containers.map((c) => {
      const { name, image } = c as { name: string; image: string };
      return `${name}:${image}`;
    });

  it('orders merged lists as kube-apiserver does, with or without $setElementOrder', async () => {
    const ns = await newNamespace('smp-order');
    const cases: [object, string[]][] = [
      // The patch's items in its order; the server's others slotted in where they stood.
      [
        podSpec({
          containers: [
            { name: 'c', image: 'x' },
            { name: 'a', image: 'y' },
          ],
        }),
        ['b:i', 'c:x', 'a:y'],
      ],
      // A new item goes where the patch puts it: first, when it is alone.
      [podSpec({ containers: [{ name: 'd', image: 'x' }] }), ['d:x', 'a:i', 'b:i', 'c:i']],
      [
        podSpec({
          containers: [
            { name: 'd', image: 'x' },
            { name: 'a', image: 'y' },
          ],
        }),
        ['d:x', 'a:y', 'b:i', 'c:i'],
      ],
      [
        podSpec({
          '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }],
          containers: [{ name: 'b', image: 'z' }],
        }),
        ['c:i', 'b:z', 'a:i'],
      ],
      [podSpec({ containers: [{ name: 'b', $patch: 'delete' }] }), ['a:i', 'c:i']],
      [podSpec({ containers: [{ name: 'z', image: 'z' }, { $patch: 'replace' }] }), ['z:z']],
    ];
    for (const [patch, expected] of cases) {
      const url = await deployment(ns);
      const res = await call('PATCH', url, { body: patch, contentType: SMP });
      expect(res.status).toBe(200);
      expect(containers(res.json)).toEqual(expected);
    }
  });

  it('answers bad directives with kube-apiserver’s 500 or 400', async () => {
    const ns = await newNamespace('smp-errors');
    const url = await deployment(ns);
    const cases: [object, number, string][] = [
      [
        podSpec({ containers: [{ name: 'b', $patch: 'foo' }] }),
        500,
        'unknown patch type: foo in map: map[$patch:foo name:b]',
      ],
      [podSpec({ $patch: 'foo' }), 500, 'unknown patch type: foo in map: map[$patch:foo]'],
      [
        podSpec({ containers: ['x'] }),
        500,
        // Go's %v of the stored (defaulted) list and of the patch's.
        `list element types are not identical: [[${['a', 'b', 'c']
          .map(
            (n) =>
              `map[image:i imagePullPolicy:Always name:${n} resources:map[] terminationMessagePath:/dev/termination-log terminationMessagePolicy:File]`,
          )
          .join(' ')}] [x]]`,
      ],
      [
        podSpec({ containers: [{ $patch: 'delete' }] }),
        500,
        'map: map[$patch:delete] does not contain declared merge key: name',
      ],
      [
        podSpec({ containers: [{ image: 'q' }] }),
        500,
        'map: map[image:q] does not contain declared merge key: name',
      ],
      [
        podSpec({
          '$setElementOrder/containers': [{ name: 'c' }],
          containers: [{ name: 'b', image: 'z' }],
        }),
        500,
        "The order in patch list:\n[map[image:z name:b]]\n doesn't match $setElementOrder list:\n[map[name:c]]\n",
      ],
      [
        { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } },
        400,
        'invalid patch format of retainKeys',
      ],
      [{ spec: { strategy: { $retainKeys: 'type' } } }, 400, 'invalid patch format of retainKeys'],
    ];
    for (const [patch, code, message] of cases) {
      const res = await call('PATCH', url, { body: patch, contentType: SMP });
      if (code === 500) {
        expectFailure(res, 500, { message });
        expect(res.json.reason).toBeUndefined();
      } else {
        expectFailure(res, code, { reason: 'BadRequest', message });
      }
    }
  });

  it('merges finalizers as a list of scalars and deletes from it with $deleteFromPrimitiveList', async () => {
    const ns = await newNamespace('smp-finalizers');
    const url = await deployment(ns);
    const steps: [object, string[] | undefined][] = [
      [{ metadata: { finalizers: ['x/b'] } }, ['x/b']],
      [{ metadata: { finalizers: ['x/a', 'x/b'] } }, ['x/a', 'x/b']],
      [{ metadata: { finalizers: ['x/c'] } }, ['x/c', 'x/a', 'x/b']],
      [
        { metadata: { '$setElementOrder/finalizers': ['x/c', 'x/b', 'x/a'], finalizers: ['x/b'] } },
        ['x/c', 'x/b', 'x/a'],
      ],
      [{ metadata: { '$deleteFromPrimitiveList/finalizers': ['x/a', 'x/b', 'x/c'] } }, undefined],
    ];
    for (const [patch, finalizers] of steps) {
      const res = await call('PATCH', url, { body: patch, contentType: SMP });
      expect(res.status).toBe(200);
      expect(res.json.metadata.finalizers).toEqual(finalizers);
    }
  });
}
