import { expect, it } from 'vitest';
import type { ContractEndpoint } from './contract-client.js';
import { contractCalls } from './contract-helpers.js';

/**
 * The field labels of the workload kinds on kube-apiserver 1.20: batch/v1 Jobs and
 * batch/v1beta1 CronJobs convert them per kind (each with its own 400 text), apps/v1 kinds know
 * only the object-meta labels. (The embedded server serves no ReplicationControllers.)
 */

/** A collection (under `/…/namespaces/<ns>/`), a field label, and 1.20's 400 text (null: accepted). */
const FIELD_LABELS: readonly [string, string, string | null][] = [
  ['apis/batch/v1 jobs', 'x', 'field label "x" not supported for batchv1.Job'],
  [
    'apis/batch/v1 jobs',
    'status.replicas',
    'field label "status.replicas" not supported for batchv1.Job',
  ],
  ['apis/batch/v1 jobs', 'status.successful', null],
  ['apis/batch/v1 jobs', 'metadata.name', null],
  ['apis/batch/v1beta1 cronjobs', 'x', 'field label "x" not supported for "CronJob"'],
  [
    'apis/batch/v1beta1 cronjobs',
    'spec.schedule',
    'field label "spec.schedule" not supported for "CronJob"',
  ],
  ['apis/batch/v1beta1 cronjobs', 'status.successful', null],
  [
    'apis/apps/v1 deployments',
    'x',
    '"x" is not a known field selector: only "metadata.name", "metadata.namespace"',
  ],
  [
    'apis/apps/v1 deployments',
    'status.replicas',
    '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
  ],
  [
    'apis/apps/v1 replicasets',
    'status.replicas',
    '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
  ],
  [
    'apis/apps/v1 statefulsets',
    'status.successful',
    '"status.successful" is not a known field selector: only "metadata.name", "metadata.namespace"',
  ],
  [
    'apis/apps/v1 daemonsets',
    'spec.replicas',
    '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
  ],
  ['apis/apps/v1 daemonsets', 'metadata.namespace', null],
];

/** A selector on one collection and the names 1.20 lists for it. */
const MATCHES: readonly [string, string, string[]][] = [
  ['apis/batch/v1 jobs', 'status.successful=0', ['unfinished']],
  ['apis/batch/v1 jobs', 'status.successful=1', ['succeeded']],
  ['apis/batch/v1 jobs', 'status.successful!=1', ['unfinished']],
  ['apis/batch/v1 jobs', 'status.successful=', []],
  // Accepted, but not in a CronJob's field set: every CronJob has it empty.
  ['apis/batch/v1beta1 cronjobs', 'status.successful=0', []],
  ['apis/batch/v1beta1 cronjobs', 'status.successful=', ['nightly']],
  ['apis/batch/v1beta1 cronjobs', 'status.successful!=0', ['nightly']],
];

const podTemplate = {
  spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
};

function collection(ns: string, where: string): string {
  const [prefix, resource] = where.split(' ');
  return `/${prefix}/namespaces/${ns}/${resource}`;
}

/** Registers the tests in the caller's describe block. */
export function defineWorkloadFieldSelectorsContract(getTarget: () => ContractEndpoint): void {
  const { call, create, newNamespace } = contractCalls(getTarget);

  it('answers each workload kind’s field labels as 1.20 does, for lists and watches', async () => {
    const ns = await newNamespace('workload-fields');
    const answers: unknown[] = [];
    for (const [where, field] of FIELD_LABELS) {
      const selector = `fieldSelector=${encodeURIComponent(`${field}=1`)}`;
      const list = await call('GET', `${collection(ns, where)}?${selector}`);
      const answer = [where, field, list.status === 200 ? null : list.json.message];
      answers.push(answer);
      if (list.status !== 200) {
        const watch = await call('GET', `${collection(ns, where)}?watch=true&${selector}`);
        answers.push([...answer, 'watch', watch.status, watch.json.reason]);
      }
    }
    const expected: unknown[] = [];
    for (const row of FIELD_LABELS) {
      expected.push(row);
      if (row[2] !== null) expected.push([...row, 'watch', 400, 'BadRequest']);
    }
    expect(answers).toEqual(expected);
  });

  it('selects Jobs by status.successful, and no CronJob by it', async () => {
    const ns = await newNamespace('workload-match');
    const jobs = collection(ns, 'apis/batch/v1 jobs');
    for (const name of ['unfinished', 'succeeded']) {
      await create(jobs, {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name },
        spec: { template: podTemplate },
      });
    }
    const succeeded = await call('GET', `${jobs}/succeeded`);
    const status = await call('PUT', `${jobs}/succeeded/status`, {
      body: { ...succeeded.json, status: { succeeded: 1 } },
    });
    expect(status.status).toBe(200);
    await create(collection(ns, 'apis/batch/v1beta1 cronjobs'), {
      apiVersion: 'batch/v1beta1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: podTemplate } } },
    });
    const answers: unknown[] = [];
    for (const [where, selector] of MATCHES) {
      const res = await call(
        'GET',
        `${collection(ns, where)}?fieldSelector=${encodeURIComponent(selector)}`,
      );
      answers.push([
        where,
        selector,
        res.json.items?.map((i: { metadata: { name: string } }) => i.metadata.name) ?? res.text,
      ]);
    }
    expect(answers).toEqual(MATCHES);
  });
}
