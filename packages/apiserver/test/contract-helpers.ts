import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import {
  type ContractEndpoint,
  type RawRequestOptions,
  type RawResponse,
  rawRequest,
} from './contract-client.js';

/** An RFC 3339 timestamp with seconds, as the API server writes them. */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** A short random suffix for names unique to one run. */
export const suffix = (): string => randomBytes(3).toString('hex');

/** A ConfigMap body; `extra.metadata` is merged into its metadata. */
export const cm = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(extra.metadata as object | undefined) },
  ...(extra.data ? { data: extra.data } : {}),
});

/** The requests every contract test makes, against the target `getTarget` returns. */
export interface ContractCalls {
  call(method: string, path: string, options?: RawRequestOptions): Promise<RawResponse>;
  /** POSTs `body`, failing unless the server answers 201. */
  create(path: string, body: unknown): Promise<RawResponse>;
  /** Creates a namespace named `prefix-<random>` and returns its name. */
  newNamespace(prefix: string): Promise<string>;
  /** Waits (up to 30 s, polling) until `check` answers `want`. */
  eventually(check: () => Promise<boolean>, want: boolean): Promise<void>;
}

/** {@link ContractCalls} against the target `getTarget` returns when a test runs. */
export function contractCalls(getTarget: () => ContractEndpoint): ContractCalls {
  const call = (method: string, path: string, options?: RawRequestOptions): Promise<RawResponse> =>
    rawRequest(getTarget(), method, path, options);
  const create = async (path: string, body: unknown): Promise<RawResponse> => {
    const res = await call('POST', path, { body });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
    return res;
  };
  const newNamespace = async (prefix: string): Promise<string> => {
    const name = `${prefix}-${suffix()}`;
    await create('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
    return name;
  };
  const eventually = async (check: () => Promise<boolean>, want: boolean): Promise<void> => {
    const deadline = Date.now() + 30_000;
    while ((await check()) !== want) {
      if (Date.now() > deadline) throw new Error(`condition did not become ${want}`);
      await sleep(200);
    }
  };
  return { call, create, newNamespace, eventually };
}

/** Expects a failure Status with HTTP `code` whose body matches `expected` (reason, message, …). */
export function expectFailure(
  res: RawResponse,
  code: number,
  expected: Record<string, unknown>,
): void {
  expect(res.status).toBe(code);
  expect(res.json).toMatchObject({ kind: 'Status', status: 'Failure', code, ...expected });
}

/**
 * A namespaced apiextensions.k8s.io/v1 CRD named `<plural>.<group>` serving `v1` (stored), with
 * `version`'s fields (schema, subresources, printer columns) merged into that version.
 */
export function crdBody(
  group: string,
  names: { plural: string; singular: string; kind: string; shortNames?: string[] },
  version: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names,
      versions: [{ name: 'v1', served: true, storage: true, ...version }],
    },
  };
}

/**
 * Creates a namespaced CRD `<plural>.<group>` (group `<prefix><random>.contract.kubets.io`)
 * whose v1 takes any fields, and returns its collection in `ns` once the server serves it.
 */
export async function createOpenCrd(
  calls: ContractCalls,
  prefix: string,
  names: { plural: string; singular: string; kind: string },
  ns: string,
): Promise<{ group: string; collection: string }> {
  const group = `${prefix}${suffix()}.contract.kubets.io`;
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const crd = crdBody(group, names, { schema: { openAPIV3Schema: open } });
  await calls.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  const collection = `/apis/${group}/v1/namespaces/${ns}/${names.plural}`;
  await calls.eventually(async () => (await calls.call('GET', collection)).status === 200, true);
  return { group, collection };
}
