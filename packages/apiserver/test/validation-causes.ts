import { beforeAll, describe, expect, it } from 'vitest';
import type { ContractEndpoint, RawResponse } from './contract-client.js';
import { contractCalls, expectFailure } from './contract-helpers.js';

/** The causes of a 422 Invalid Status, and the messages kube-apiserver 1.20 writes in them. */

export const QUALIFIED =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
export const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
export const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
export const DNS_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

export const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** One entry of `details.causes`. */
export type Cause = { reason: string; message: string; field: string };
/** `Invalid value: <value>: <problem>` (a string value quoted, a number not). */
export const invalid = (field: string, value: string | number, problem: string): Cause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${problem}`,
  field,
});
/** `Required value`, or `Required value: <detail>`. */
export const required = (field: string, detail = ''): Cause => ({
  reason: 'FieldValueRequired',
  message: detail === '' ? 'Required value' : `Required value: ${detail}`,
  field,
});

/** `Unsupported value: <value>: supported values: <values>`. */
export const unsupported = (field: string, value: string | boolean, values: string[]): Cause => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${values.map((v) => JSON.stringify(v)).join(', ')}`,
  field,
});

/** `Forbidden: <detail>`. */
export const forbidden = (field: string, detail: string): Cause => ({
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${detail}`,
  field,
});

/** `Duplicate value: <value>`. */
export const duplicate = (field: string, value: string | number): Cause => ({
  reason: 'FieldValueDuplicate',
  message: `Duplicate value: ${JSON.stringify(value)}`,
  field,
});

/** Expects a 422 for `kind "name"` whose causes are exactly `causes`, in order. */
export function expectInvalid(res: RawResponse, kind: string, name: string, causes: Cause[]): void {
  const lines = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const summary = lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`;
  expectFailure(res, 422, {
    reason: 'Invalid',
    message: `${kind} "${name}" is invalid: ${summary}`,
  });
  expect((res.json.details as { causes: unknown }).causes).toEqual(causes);
}

/** An object whose create kube-apiserver 1.20 refuses, and the causes it lists. */
export interface InvalidCreate {
  /** What the case checks, the end of the test's name. */
  what: string;
  /** `v1`, `apps/v1`, …: where the object is posted. */
  apiVersion: string;
  resource: string;
  kind: string;
  spec: Record<string, unknown>;
  causes: Cause[];
}

/**
 * One test per case, each creating its object (named `x`) in a namespace of the suite's own
 * and expecting exactly its causes.
 */
export function defineInvalidCreates(
  getTarget: () => ContractEndpoint,
  title: string,
  cases: readonly InvalidCreate[],
): void {
  const { call, newNamespace } = contractCalls(getTarget);
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace('invalid');
  });
  describe(title, () => {
    for (const { what, apiVersion, resource, kind, spec, causes } of cases) {
      it(`checks ${what} (422)`, async () => {
        const root = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
        const res = await call('POST', `${root}/namespaces/${ns}/${resource}`, {
          body: { apiVersion, kind, metadata: { name: 'x' }, spec },
        });
        const group = apiVersion.includes('/') ? `.${apiVersion.split('/')[0]}` : '';
        expectInvalid(res, `${kind}${group}`, 'x', causes);
      });
    }
  });
}
