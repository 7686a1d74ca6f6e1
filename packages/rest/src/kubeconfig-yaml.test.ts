import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseSimpleYaml } from './kubeconfig-yaml.js';

// As kubectl config view --raw writes one (sigs.k8s.io/yaml): sequences at their key's indent.
const kubectlStyle = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    server: https://127.0.0.1:6443
    insecure-skip-tls-verify: true
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    namespace: default
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    token: abc.def-ghi_jkl
    exec: null
- name: empty
  user: {}
`;

// Indented sequences, quoted strings, comments, an empty value, a sequence of scalars.
const otherStyle = `# written by hand
apiVersion: "v1"
kind: 'Config'
clusters:
  - name: "kubets-apiserver"
    cluster:
      server: "https://127.0.0.1:35125"
      proxy-url:
  - name: 'it''s'
    cluster:
      server: https://[::1]:6443/path?x=a,b
users:
  - name: u
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: aws
        args:
          - eks
          - get-token
        env: []
extensions: ~
`;

describe('parseSimpleYaml', () => {
  it('reads the kubeconfigs tools write as yaml.parse does', () => {
    for (const text of [kubectlStyle, otherStyle]) {
      expect(parseSimpleYaml(text)).toEqual(parse(text));
      expect(parseSimpleYaml(text)).not.toBeUndefined();
    }
  });

  it('reads what yaml.stringify writes of a kubeconfig', () => {
    for (const text of [kubectlStyle, otherStyle]) {
      const written = stringify(parse(text));
      expect(parseSimpleYaml(written)).toEqual(parse(written));
    }
  });

  // Each is valid YAML the reader leaves to `yaml`: it answers undefined, never a wrong value.
  const leftToYaml: [string, string][] = [
    ['a number', 'port: 6443\n'],
    ['a float-looking word', 'version: .5\n'],
    ['an anchor and an alias', 'a: &x b\nc: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a block scalar', 'a: |\n  line\n'],
    ['a folded scalar', 'a: >\n  line\n'],
    ['a flow mapping', 'a: {b: c}\n'],
    ['a flow sequence', 'a: [b, c]\n'],
    ['a comment after a value', 'a: b # note\n'],
    ['a multi-line plain scalar', 'a: b\n  c\n'],
    ['a multi-line quoted scalar', 'a: "b\n  c"\n'],
    ['an escape', 'a: "b\\tc"\n'],
    ['a tab', 'a:\tb\n'],
    ['a CRLF', 'a: b\r\n'],
    ['a document marker', '---\na: b\n'],
    ['a directive', '%YAML 1.2\n---\na: b\n'],
    ['a key twice', 'a: b\na: c\n'],
    ['a null key', 'null: b\n'],
    ['a boolean key', 'true: b\n'],
    ['a number key', '1: b\n'],
    ['a __proto__ key', '__proto__: b\n'],
    ['an explicit key', '? a\n: b\n'],
    ['a nested sequence', 'a:\n- - b\n'],
    ['an empty item', 'a:\n-\n  b: c\n'],
    ['a root sequence', '- a\n'],
    ['a root scalar', 'a\n'],
    ['an indented root', '  a: b\n'],
    ['a value with a colon and a space', 'a: b: c\n'],
    ['an item deeper than its siblings', 'a:\n- b\n  - c\n'],
    ['a byte order mark', '\uFEFFa: b\n'],
    ['a key without a space after its colon', 'a:b: c\n'],
  ];
  for (const [name, text] of leftToYaml) {
    it(`leaves ${name} to yaml`, () => {
      expect(parseSimpleYaml(text)).toBeUndefined();
    });
  }

  it('answers as yaml.parse or not at all for variations of real kubeconfigs', () => {
    // Every line dropped, every line indented by one more space, every value replaced by
    // awkward words: valid or not, the reader agrees with yaml or stays out of it.
    const words = [
      'yes',
      'no',
      'on',
      'Off',
      '0x1F',
      '1e3',
      '-',
      '- x',
      '<nil>',
      'a,b',
      '"',
      "'",
      '',
    ];
    for (const base of [kubectlStyle, otherStyle]) {
      const lines = base.split('\n');
      const variants: string[] = [];
      for (let i = 0; i < lines.length; i++) {
        variants.push([...lines.slice(0, i), ...lines.slice(i + 1)].join('\n'));
        variants.push([...lines.slice(0, i), ` ${lines[i]}`, ...lines.slice(i + 1)].join('\n'));
        const colon = lines[i]!.indexOf(': ');
        if (colon < 0) continue;
        for (const word of words) {
          const changed = `${lines[i]!.slice(0, colon + 2)}${word}`;
          variants.push([...lines.slice(0, i), changed, ...lines.slice(i + 1)].join('\n'));
        }
      }
      for (const text of variants) {
        const simple = parseSimpleYaml(text);
        if (simple === undefined) continue;
        expect(simple, text).toEqual(parse(text));
      }
    }
  });
});
