import { isObject, type JsonObject, type JsonValue } from '../patch.js';
import { eachObject, invalid, required } from './field-errors.js';
import { validateLabelSelector } from './label-selector.js';
import { duplicateErrors, type FieldError, nameProblems, notSupportedErrors } from './names.js';

/**
 * kube-apiserver 1.20's checks of a v1 Validating/MutatingWebhookConfiguration (after the v1
 * defaults): each webhook's name, rules, policies, selectors and client, then its
 * admissionReviewVersions, then unique names.
 */
export function validateWebhookConfiguration(obj: JsonObject, mutating: boolean): FieldError[] {
  const names = new Set<string>();
  return eachObject(obj.webhooks, 'webhooks', (hook, at) => [
    ...validateWebhook(hook, at, mutating),
    ...validateReviewVersions(hook.admissionReviewVersions, `${at}.admissionReviewVersions`),
    ...(typeof hook.name === 'string' && hook.name !== ''
      ? duplicateErrors(hook.name, names, `${at}.name`)
      : []),
  ]);
}

const strings = (value: JsonValue | undefined): string[] =>
  Array.isArray(value) ? value.map((v) => String(v)) : [];

/**
 * An `Invalid value` cause quoting a slice as Go's `%#v` prints it: `[]string{"a", "b"}`
 * (operations are `[]admissionregistration.OperationType{…}`).
 */
function invalidList(
  field: string,
  values: string[],
  problem: string,
  goType = 'string',
): FieldError {
  const shown = `[]${goType}{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${problem}`, field };
}

function validateWebhook(hook: JsonObject, at: string, mutating: boolean): FieldError[] {
  const errors: FieldError[] = [...fullyQualifiedName(hook.name, `${at}.name`)];
  errors.push(...eachObject(hook.rules, `${at}.rules`, validateRule));
  errors.push(...notSupportedErrors(hook.failurePolicy, ['Fail', 'Ignore'], `${at}.failurePolicy`));
  errors.push(
    ...notSupportedErrors(hook.matchPolicy, ['Equivalent', 'Exact'], `${at}.matchPolicy`),
  );
  const sideEffects = ['None', 'NoneOnDryRun'];
  if (hook.sideEffects === undefined || hook.sideEffects === null) {
    errors.push(required(`${at}.sideEffects`, `must specify one of ${sideEffects.join(', ')}`));
  } else {
    errors.push(...notSupportedErrors(hook.sideEffects, sideEffects, `${at}.sideEffects`));
  }
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) {
    errors.push(
      invalid(
        `${at}.timeoutSeconds`,
        timeout,
        'the timeout value must be between 1 and 30 seconds',
      ),
    );
  }
  if (isObject(hook.namespaceSelector)) {
    errors.push(...validateLabelSelector(hook.namespaceSelector, `${at}.namespaceSelector`));
  }
  if (isObject(hook.objectSelector)) {
    errors.push(...validateLabelSelector(hook.objectSelector, `${at}.objectSelector`));
  }
  errors.push(...validateClientConfig(hook.clientConfig, `${at}.clientConfig`));
  if (mutating) {
    errors.push(
      ...notSupportedErrors(
        hook.reinvocationPolicy,
        ['IfNeeded', 'Never'],
        `${at}.reinvocationPolicy`,
      ),
    );
  }
  return errors;
}

function fullyQualifiedName(name: JsonValue | undefined, field: string): FieldError[] {
  const value = typeof name === 'string' ? name : '';
  if (value === '') return [required(field)];
  const problems = nameProblems(value, 'subdomain');
  if (problems.length > 0) return [invalid(field, value, problems.join(','))];
  if (value.split('.').length < 3) {
    return [
      invalid(field, value, 'should be a domain with at least three segments separated by dots'),
    ];
  }
  return [];
}

function validateRule(rule: JsonObject, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const operations = strings(rule.operations);
  if (operations.length === 0) errors.push(required(`${at}.operations`));
  if (operations.length > 1 && operations.includes('*')) {
    errors.push(
      invalidList(
        `${at}.operations`,
        operations,
        "if '*' is present, must not specify other operations",
        'admissionregistration.OperationType',
      ),
    );
  }
  operations.forEach((op, i) => {
    errors.push(
      ...notSupportedErrors(
        op,
        ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'],
        `${at}.operations[${i}]`,
      ),
    );
  });
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errors.push(required(`${at}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) {
    errors.push(
      invalidList(
        `${at}.apiGroups`,
        groups,
        "if '*' is present, must not specify other API groups",
      ),
    );
  }
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) errors.push(required(`${at}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) {
    errors.push(
      invalidList(
        `${at}.apiVersions`,
        versions,
        "if '*' is present, must not specify other API versions",
      ),
    );
  }
  versions.forEach((v, i) => {
    if (v === '') errors.push(required(`${at}.apiVersions[${i}]`));
  });
  errors.push(...validateResources(strings(rule.resources), `${at}.resources`));
  errors.push(...notSupportedErrors(rule.scope, ['*', 'Cluster', 'Namespaced'], `${at}.scope`));
  return errors;
}

function validateResources(resources: string[], at: string): FieldError[] {
  const errors: FieldError[] = [];
  if (resources.length === 0) errors.push(required(at));
  const wildcardSubresources = new Set<string>();
  const wildcardResources = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((entry, i) => {
    if (entry === '') {
      errors.push(required(`${at}[${i}]`));
      return;
    }
    if (entry === '*/*') doubleWildcard = true;
    if (entry === '*') singleWildcard = true;
    const slash = entry.indexOf('/');
    if (slash === -1) {
      plainResource = entry !== '*';
      return;
    }
    const res = entry.slice(0, slash);
    const sub = entry.slice(slash + 1);
    if (wildcardSubresources.has(res)) {
      errors.push(
        invalid(`${at}[${i}]`, entry, `if '${res}/*' is present, must not specify ${entry}`),
      );
    }
    if (wildcardResources.has(sub)) {
      errors.push(
        invalid(`${at}[${i}]`, entry, `if '*/${sub}' is present, must not specify ${entry}`),
      );
    }
    if (sub === '*') wildcardSubresources.add(res);
    if (res === '*') wildcardResources.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) {
    errors.push(
      invalidList(at, resources, "if '*/*' is present, must not specify other resources"),
    );
  }
  if (singleWildcard && plainResource) {
    errors.push(
      invalidList(
        at,
        resources,
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  }
  return errors;
}

const URL_FORM = '; desired format: https://host[/path]';

function validateClientConfig(config: JsonValue | undefined, at: string): FieldError[] {
  const cc = isObject(config) ? config : {};
  const hasUrl = typeof cc.url === 'string';
  const hasService = isObject(cc.service);
  if (hasUrl === hasService) return [required(at, 'exactly one of url or service is required')];
  if (!hasService) return validateUrl(String(cc.url), `${at}.url`);
  const service = cc.service as JsonObject;
  const errors: FieldError[] = [];
  if (typeof service.name !== 'string' || service.name === '') {
    errors.push(required(`${at}.service.name`, 'service name is required'));
  }
  if (typeof service.namespace !== 'string' || service.namespace === '') {
    errors.push(required(`${at}.service.namespace`, 'service namespace is required'));
  }
  const port = service.port;
  if (typeof port === 'number' && (port < 1 || port > 65535)) {
    errors.push(
      invalid(
        `${at}.service.port`,
        port,
        'port is not valid: must be between 1 and 65535, inclusive',
      ),
    );
  }
  return errors;
}

function validateUrl(text: string, at: string): FieldError[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    return [required(at, `url must be a valid URL: ${(error as Error).message}${URL_FORM}`)];
  }
  const errors: FieldError[] = [];
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'https') {
    errors.push(invalid(at, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  }
  if (url.host === '') errors.push(invalid(at, url.host, `host must be specified${URL_FORM}`));
  if (url.username !== '' || url.password !== '') {
    const user = url.password !== '' ? `${url.username}:${url.password}` : url.username;
    errors.push(invalid(at, user, 'user information is not permitted in the URL'));
  }
  if (url.hash !== '') {
    errors.push(invalid(at, url.hash.slice(1), 'fragments are not permitted in the URL'));
  }
  if (url.search !== '') {
    errors.push(invalid(at, url.search.slice(1), 'query parameters are not permitted in the URL'));
  }
  return errors;
}

const REVIEW_VERSIONS = ['v1', 'v1beta1'];

function validateReviewVersions(value: JsonValue | undefined, at: string): FieldError[] {
  const versions = strings(value);
  if (versions.length === 0) {
    return [required(at, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  }
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errors.push(invalid(`${at}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const problem of nameProblems(v, 'dns1035'))
      errors.push(invalid(`${at}[${i}]`, v, problem));
  });
  if (!versions.some((v) => REVIEW_VERSIONS.includes(v))) {
    errors.push(
      invalidList(at, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`),
    );
  }
  return errors;
}
