import { describe, expect, it } from 'vitest';
import {
  apiVersion,
  GroupVersionParseError,
  groupKindToString,
  groupResourceToString,
  groupVersionKindToString,
  groupVersionResourceToString,
  groupVersionToString,
  gvkFromObject,
  parseGroupResource,
  parseGroupVersion,
  parseGroupVersionResource,
  parseResourceArg,
} from './gvk.js';

describe('parseGroupVersion', () => {
  it.each([
    ['splits group/version', 'apps/v1', { group: 'apps', version: 'v1' }],
    ['splits group/version', 'crddemo.k8s.io/v1', { group: 'crddemo.k8s.io', version: 'v1' }],
    ['reads a bare version as the core group', 'v1', { group: '', version: 'v1' }],
  ])('%s: %j', (_what, input, expected) => {
    expect(parseGroupVersion(input)).toEqual(expected);
  });

  it.each([
    ['a/b/c', 'more than one "/"'],
    ['', 'empty'],
    ['apps/', 'version after "/" is empty'],
    ['/v1', 'group before "/" is empty'],
  ])('rejects %j naming the input', (input, problem) => {
    let caught: unknown;
    try {
      parseGroupVersion(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GroupVersionParseError);
    expect(caught).toBeInstanceOf(TypeError);
    const err = caught as GroupVersionParseError;
    expect(err.input).toBe(input);
    expect(err.message).toContain(JSON.stringify(input));
    expect(err.message).toContain(problem);
  });
});

describe('formatting', () => {
  it('apiVersion omits the core group', () => {
    expect(apiVersion('apps', 'v1')).toBe('apps/v1');
    expect(apiVersion('', 'v1')).toBe('v1');
    expect(groupVersionToString({ group: 'apps', version: 'v1' })).toBe('apps/v1');
    expect(groupVersionToString({ group: '', version: 'v1' })).toBe('v1');
  });

  it('round-trips through parseGroupVersion', () => {
    for (const text of ['v1', 'apps/v1', 'crddemo.k8s.io/v1beta1']) {
      expect(groupVersionToString(parseGroupVersion(text))).toBe(text);
    }
  });

  it('prints kinds and resources like client-go', () => {
    expect(groupVersionKindToString({ group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(
      'apps/v1, Kind=Deployment',
    );
    expect(groupVersionResourceToString({ group: '', version: 'v1', resource: 'pods' })).toBe(
      'v1, Resource=pods',
    );
    expect(groupResourceToString({ group: 'apps', resource: 'deployments' })).toBe(
      'deployments.apps',
    );
    expect(groupResourceToString({ group: '', resource: 'pods' })).toBe('pods');
    expect(groupKindToString({ group: 'apps', kind: 'Deployment' })).toBe('Deployment.apps');
    expect(groupKindToString({ group: '', kind: 'Pod' })).toBe('Pod');
  });
});

describe('parseGroupResource', () => {
  it('splits at the first dot', () => {
    expect(parseGroupResource('deployments.apps')).toEqual({
      group: 'apps',
      resource: 'deployments',
    });
    expect(parseGroupResource('mydemos.crddemo.k8s.io')).toEqual({
      group: 'crddemo.k8s.io',
      resource: 'mydemos',
    });
    expect(parseGroupResource('pods')).toEqual({ group: '', resource: 'pods' });
  });

  it('rejects an empty resource', () => {
    expect(() => parseGroupResource('')).toThrow(GroupVersionParseError);
    expect(() => parseGroupResource('.apps')).toThrow(/"\.apps" is not a resource/);
  });
});

describe('parseResourceArg', () => {
  // `gvrOnly`: only the GVR is compared.
  it.each<{ name: string; arg: string; gvrOnly?: boolean; expected: unknown }>([
    {
      name: 'resource.version.group gives a GVR and the group-resource fallback',
      arg: 'deployments.v1.apps',
      expected: {
        gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
        gr: { group: 'v1.apps', resource: 'deployments' },
      },
    },
    {
      name: 'keeps dots in the group',
      arg: 'mydemos.v1.crddemo.k8s.io',
      gvrOnly: true,
      expected: { group: 'crddemo.k8s.io', version: 'v1', resource: 'mydemos' },
    },
    {
      name: 'resource.group has no GVR',
      arg: 'deployments.apps',
      expected: { gvr: undefined, gr: { group: 'apps', resource: 'deployments' } },
    },
    {
      name: 'a bare resource is in the core group',
      arg: 'pods',
      expected: { gvr: undefined, gr: { group: '', resource: 'pods' } },
    },
    {
      name: 'pods.v1. names the core group explicitly',
      arg: 'pods.v1.',
      gvrOnly: true,
      expected: { group: '', version: 'v1', resource: 'pods' },
    },
  ])('$name', ({ arg, gvrOnly, expected }) => {
    const parsed = parseResourceArg(arg);
    expect(gvrOnly ? parsed.gvr : parsed).toEqual(expected);
  });

  it('rejects an empty resource', () => {
    expect(() => parseResourceArg('.v1.apps')).toThrow(GroupVersionParseError);
  });
});

describe('parseGroupVersionResource', () => {
  const appsDeployments = { group: 'apps', version: 'v1', resource: 'deployments' };
  const corePods = { group: '', version: 'v1', resource: 'pods' };

  it('accepts resource.version.group', () => {
    expect(parseGroupVersionResource('deployments.v1.apps')).toEqual(appsDeployments);
    expect(parseGroupVersionResource('pods.v1.')).toEqual(corePods);
  });

  it('accepts group/version/resource and version/resource', () => {
    expect(parseGroupVersionResource('apps/v1/deployments')).toEqual(appsDeployments);
    expect(parseGroupVersionResource('v1/pods')).toEqual(corePods);
  });

  it.each([
    ['deployments.apps', 'expected "resource.version.group"'],
    ['pods', 'expected "resource.version.group"'],
    ['.v1.apps', 'resource is empty'],
    ['pods..apps', 'version is empty'],
    ['apps/v1/', 'resource is empty'],
    ['a/b/c/d', 'more than one "/"'],
  ])('rejects %j', (input, problem) => {
    expect(() => parseGroupVersionResource(input)).toThrow(GroupVersionParseError);
    expect(() => parseGroupVersionResource(input)).toThrow(problem);
  });
});

describe('gvkFromObject', () => {
  it('reads apiVersion and kind', () => {
    expect(gvkFromObject({ apiVersion: 'apps/v1', kind: 'Deployment' })).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    expect(
      gvkFromObject({ apiVersion: 'v1', kind: 'Pod', metadata: {} } as {
        apiVersion: string;
        kind: string;
      }),
    ).toEqual({
      group: '',
      version: 'v1',
      kind: 'Pod',
    });
  });

  it('explains missing or malformed fields', () => {
    expect(() => gvkFromObject({ kind: 'Pod' })).toThrow(/apiVersion/);
    expect(() => gvkFromObject({ apiVersion: 'v1' })).toThrow(/kind/);
    expect(() => gvkFromObject({ apiVersion: 'v1', kind: 42 })).toThrow(GroupVersionParseError);
    expect(() => gvkFromObject({ apiVersion: 'a/b/c', kind: 'X' })).toThrow(/"a\/b\/c"/);
  });
});
