import { describe, expect, it } from 'vitest';
import { namesInUse, ScaffoldError, scaffoldNames } from './names.js';

/** The problems `scaffoldNames` refuses `options` with. */
function refusal(options: Parameters<typeof scaffoldNames>[0]) {
  try {
    scaffoldNames(options);
  } catch (err) {
    if (err instanceof ScaffoldError) return err;
    throw err;
  }
  throw new Error('the options were accepted');
}

describe('scaffoldNames', () => {
  it('fills in the defaults and derives the names the templates use', () => {
    expect(scaffoldNames({ name: 'my-operator' })).toEqual({
      name: 'my-operator',
      namespace: 'my-operator-system',
      group: 'example.com',
      kind: 'Website',
      version: 'v1alpha1',
      plural: 'websites',
      camelKind: 'website',
    });
  });

  it.each([
    ['Policy', 'policies', 'policy'],
    ['Box', 'boxes', 'box'],
    ['DatabaseCluster', 'databaseclusters', 'databaseCluster'],
    ['S3Bucket', 's3buckets', 's3Bucket'],
  ])('makes %s plural as @kubets/crd does (%s)', (kind, plural, camelKind) => {
    expect(scaffoldNames({ name: 'x', kind })).toMatchObject({ plural, camelKind });
  });

  it('keeps a group, kind and version given', () => {
    expect(
      scaffoldNames({ name: 'db', group: 'db.example.org', kind: 'Database', version: 'v1-beta' }),
    ).toMatchObject({ group: 'db.example.org', kind: 'Database', version: 'v1-beta' });
  });
});

describe('scaffoldNames refuses', () => {
  it.each(['My-Operator', 'my_operator', '-op', 'op-', 'my.operator', ''])(
    'the name %j, as an RFC 1123 label',
    (name) => {
      const { problems } = refusal({ name });
      expect(problems).toEqual([
        {
          option: 'name',
          message: expect.stringContaining(
            'must be an RFC 1123 label: a lowercase RFC 1123 label must consist of lower case alphanumeric characters',
          ),
        },
      ]);
    },
  );

  it('a name whose namespace (name-system) is longer than a label may be', () => {
    const name = 'a'.repeat(57);
    expect(refusal({ name }).problems).toEqual([
      {
        option: 'name',
        message: `"${name}" is too long: the operator's namespace "${name}-system" must be an RFC 1123 label: must be no more than 63 characters`,
      },
    ]);
    expect(scaffoldNames({ name: 'a'.repeat(56) }).namespace).toHaveLength(63);
  });

  it('a group without a dot, with kube-apiserver rule and field', () => {
    expect(refusal({ name: 'x', group: 'websites' }).problems).toEqual([
      {
        option: 'group',
        message: 'spec.group: Invalid value: "websites": should be a domain with at least one dot',
      },
    ]);
  });

  it('a group that is no DNS subdomain, without the CRD name that repeats it', () => {
    const { problems } = refusal({ name: 'x', group: 'Example.com' });
    expect(problems).toEqual([
      {
        option: 'group',
        message: expect.stringMatching(
          /^spec\.group: Invalid value: "Example\.com": a lowercase RFC 1123 subdomain must consist of/,
        ),
      },
    ]);
  });

  it('a version that is no DNS-1035 label, once', () => {
    const { problems } = refusal({ name: 'x', version: 'V1' });
    expect(problems).toEqual([
      {
        option: 'version',
        message: expect.stringMatching(
          /^spec\.versions\[0\]\.name: Invalid value: "V1": a DNS-1035 label must consist of/,
        ),
      },
    ]);
  });

  it.each(['Web_Site', '1Website', 'Web Site'])(
    'the kind %j, with kube-apiserver rule for spec.names.kind alone',
    (kind) => {
      expect(refusal({ name: 'x', kind }).problems).toEqual([
        {
          option: 'kind',
          message: `spec.names.kind: Invalid value: ${JSON.stringify(kind)}: may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
        },
      ]);
    },
  );

  it.each(['website', 'Web-Site', 'WEB-SITE'])(
    'the kind %j, which kube-apiserver accepts but which names a TypeScript type',
    (kind) => {
      expect(refusal({ name: 'x', kind }).problems).toEqual([
        { option: 'kind', message: expect.stringContaining('so it must be PascalCase') },
      ]);
    },
  );

  it('a kind whose plural and list kind kube-apiserver refuses, with its rule', () => {
    const kind = `A${'b'.repeat(62)}`; // 63 characters: the longest kind
    const { problems } = refusal({ name: 'x', kind });
    expect(problems).toContainEqual({
      option: 'kind',
      message: `spec.names.plural: Invalid value: "${kind.toLowerCase()}s": must be no more than 63 characters`,
    });
  });

  it.each([...namesInUse])('the kind %s, a name the generated code imports', (kind) => {
    expect(refusal({ name: 'x', kind }).problems).toEqual([
      {
        option: 'kind',
        message: expect.stringContaining('a name the generated code already imports'),
      },
    ]);
  });

  it('everything wrong at once, in one error that lists each option', () => {
    const err = refusal({ name: 'X', group: 'nodot', kind: 'x', version: '1' });
    expect(err.problems.map((p) => p.option)).toEqual(['name', 'group', 'version', 'kind']);
    expect(err.message).toMatch(/^cannot create the project:\n {2}--name: /);
    expect(err.message.split('\n')).toHaveLength(1 + err.problems.length);
  });
});
