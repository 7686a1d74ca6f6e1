import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEnvtest } from '@kubets/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crdBody } from '../test/contract-helpers.js';
import { EXPLAINED_FIELDS_1_20, explainedFields } from '../test/kubectl-explain.js';
import { startApiServer } from './server.js';

/**
 * kubectl 1.34 as users run it, against the in-memory API server and against envtest's real
 * kube-apiserver 1.20: the same commands, the same expectations. `scripts/provision-kubectl.sh`
 * (run by `provision-envtest.sh`) puts the binary next to the envtest assets.
 */
const KUBECTL =
  process.env.KUBETS_KUBECTL ??
  join(process.env.KUBEBUILDER_ASSETS ?? join(homedir(), '.cache/kubets/assets'), 'kubectl-1.34');

const WIDGET_CRD = JSON.stringify(
  crdBody(
    'kubectl.kubets.test',
    { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wdg'] },
    {
      schema: {
        openAPIV3Schema: {
          type: 'object',
          description: 'A widget for the kubectl tests.',
          properties: {
            spec: {
              type: 'object',
              description: 'What the widget should be.',
              properties: {
                size: { type: 'integer', description: 'How many parts it has.' },
                color: { type: 'string' },
                replicas: { type: 'integer' },
              },
            },
            status: {
              type: 'object',
              properties: { replicas: { type: 'integer' }, ready: { type: 'boolean' } },
            },
          },
        },
      },
      subresources: {
        status: {},
        scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
      },
      additionalPrinterColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
        { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  ),
);

const widget = (size: number, color: string) => `apiVersion: kubectl.kubets.test/v1
kind: Widget
metadata: {name: w1}
spec: {size: ${size}, color: ${color}, replicas: 1}
`;

const POD = `apiVersion: v1
kind: Pod
metadata: {name: p1}
spec:
  containers:
  - {name: main, image: busybox}
`;

interface Server {
  kubeconfigPath: string;
  stop(): Promise<void>;
}

function defineKubectlSuite(label: string, start: () => Promise<Server>, embedded: boolean): void {
  describe(`kubectl 1.34 against ${label}`, () => {
    let server: Server;
    let dir: string;
    const namespace = 'kubectl-e2e';

    const kubectl = (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
      new Promise((resolve, reject) => {
        execFile(
          KUBECTL,
          ['--kubeconfig', server.kubeconfigPath, '--cache-dir', join(dir, 'cache'), ...args],
          { timeout: 120_000 },
          (error, stdout, stderr) => {
            if (error) reject(new Error(`kubectl ${args.join(' ')}: ${stderr || error.message}`));
            else resolve({ stdout, stderr });
          },
        );
      });
    const ns = async (...args: string[]): Promise<string> =>
      (await kubectl('-n', namespace, ...args)).stdout;
    const manifest = async (name: string, body: string): Promise<string> => {
      const path = join(dir, name);
      await writeFile(path, body);
      return path;
    };
    /** The table kubectl printed, as rows of cells split on runs of two or more spaces. */
    const table = (stdout: string): string[][] =>
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/ {2,}/).map((cell) => cell.trim()));

    beforeAll(async () => {
      if (!existsSync(KUBECTL)) {
        throw new Error(`no kubectl 1.34 at ${KUBECTL}: run scripts/provision-kubectl.sh`);
      }
      dir = await mkdtemp(join(tmpdir(), 'kubets-kubectl-'));
      server = await start();
      await kubectl('create', 'namespace', namespace);
      await kubectl('apply', '-f', await manifest('crd.json', WIDGET_CRD));
      // The CRD's resource is served once it is established; kubectl sees it through discovery.
      // kube-apiserver publishes its schema in /openapi/v2 later still (explain needs it).
      for (const args of [
        ['get', 'widgets'],
        ['explain', 'widgets.spec'],
      ]) {
        for (let attempt = 0; ; attempt++) {
          try {
            await ns(...args);
            break;
          } catch (error) {
            if (attempt >= 60) throw error;
            await sleep(500);
          }
        }
      }
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('creates a configmap, a generic secret and a deployment with its typed commands', async () => {
      expect(
        await ns('create', 'configmap', 'cm1', '--from-literal=a=b', '--from-literal=c=d'),
      ).toBe('configmap/cm1 created\n');
      expect(await ns('create', 'secret', 'generic', 's1', '--from-literal=user=admin')).toBe(
        'secret/s1 created\n',
      );
      expect(
        await ns('create', 'deployment', 'd1', '--image=nginx:1.25', '--replicas=2', '--port=80'),
      ).toBe('deployment.apps/d1 created\n');
      expect(await ns('get', 'configmap', 'cm1', '-o', 'jsonpath={.data.a}{.data.c}')).toBe('bd');
      expect(await ns('get', 'secret', 's1', '-o', 'jsonpath={.type} {.data.user}')).toBe(
        `Opaque ${Buffer.from('admin').toString('base64')}`,
      );
      const deployment = JSON.parse(await ns('get', 'deployment', 'd1', '-o', 'json'));
      expect(deployment.spec.replicas).toBe(2);
      expect(deployment.spec.selector).toEqual({ matchLabels: { app: 'd1' } });
      expect(deployment.spec.template.spec.containers).toMatchObject([
        { name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80 }] },
      ]);
    });

    it('gets configmaps, secrets, deployments and pods with the server’s columns', async () => {
      await ns('apply', '-f', await manifest('pod.yaml', POD));
      const [cmHeader, cmRow] = table(await ns('get', 'configmap', 'cm1'));
      expect(cmHeader).toEqual(['NAME', 'DATA', 'AGE']);
      expect(cmRow?.slice(0, 2)).toEqual(['cm1', '2']);
      expect(cmRow?.[2]).toMatch(/^\d+[smhd]/);
      expect(table(await ns('get', 'secret', 's1'))).toEqual([
        ['NAME', 'TYPE', 'DATA', 'AGE'],
        ['s1', 'Opaque', '1', expect.stringMatching(/^\d+[smhd]/)],
      ]);
      expect(table(await ns('get', 'deployment', 'd1', '-o', 'wide'))).toEqual([
        ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR'],
        [
          'd1',
          '0/2',
          '0',
          '0',
          expect.stringMatching(/^\d+[smhd]/),
          'nginx',
          'nginx:1.25',
          'app=d1',
        ],
      ]);
      expect(table(await ns('get', 'pods'))).toEqual([
        ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'],
        ['p1', '0/1', 'Pending', '0', expect.stringMatching(/^\d+[smhd]/)],
      ]);
    });

    it('watches configmaps with the server’s columns (get -w)', async () => {
      const child = spawn(
        KUBECTL,
        ['--kubeconfig', server.kubeconfigPath, '--cache-dir', join(dir, 'cache')].concat([
          '-n',
          namespace,
          'get',
          'configmaps',
          '-w',
          '-l',
          'watched=yes',
        ]),
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      const seen = (pattern: RegExp): Promise<void> =>
        new Promise((resolve, reject) => {
          const check = (): void => {
            if (pattern.test(out)) resolve();
          };
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString('utf8');
            check();
          });
          child.on('exit', () => reject(new Error(`kubectl get -w ended early: ${out}`)));
          check();
        });
      try {
        await ns('create', 'configmap', 'watched', '--from-literal=a=b');
        await ns('label', 'configmap', 'watched', 'watched=yes');
        await seen(/^watched\s+1\s+\d+[smhd]/m);
        expect(
          out
            .split('\n')[0]
            ?.split(/ {2,}/)
            .map((c) => c.trim()),
        ).toEqual(['NAME', 'DATA', 'AGE']);
      } finally {
        child.kill();
      }
    });

    it('applies a custom resource client-side, then server-side, and prints its columns', async () => {
      const path = await manifest('widget.yaml', widget(3, 'red'));
      expect(await ns('apply', '-f', path)).toBe('widget.kubectl.kubets.test/w1 created\n');
      await writeFile(path, widget(5, 'blue'));
      expect(await ns('apply', '-f', path)).toBe('widget.kubectl.kubets.test/w1 configured\n');
      expect(table(await ns('get', 'widgets'))).toEqual([
        ['NAME', 'SIZE', 'READY', 'AGE'],
        ['w1', '5', expect.stringMatching(/^\d+[smhd]/)],
      ]);
      expect(table(await ns('get', 'wdg', '-o', 'wide'))[0]).toEqual([
        'NAME',
        'SIZE',
        'COLOR',
        'READY',
        'AGE',
      ]);
      await writeFile(path, widget(7, 'green'));
      expect(await ns('apply', '--server-side', '--force-conflicts', '-f', path)).toBe(
        'widget.kubectl.kubets.test/w1 serverside-applied\n',
      );
      expect(await ns('get', 'widget', 'w1', '-o', 'jsonpath={.spec.size} {.spec.color}')).toBe(
        '7 green',
      );
      const managers = JSON.parse(
        await ns('get', 'widget', 'w1', '-o', 'json', '--show-managed-fields'),
      ).metadata.managedFields.map((m: { manager: string; operation: string }) => m.operation);
      expect(managers).toContain('Apply');
    });

    it('applies a deployment server-side and client-side', async () => {
      const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: d2, labels: {app: d2}}
spec:
  replicas: 1
  selector: {matchLabels: {app: d2}}
  template:
    metadata: {labels: {app: d2}}
    spec:
      containers:
      - {name: main, image: ${image}}
`;
      const path = await manifest('d2.yaml', deployment('nginx:1'));
      expect(await ns('apply', '--server-side', '-f', path)).toBe(
        'deployment.apps/d2 serverside-applied\n',
      );
      const other = await manifest('d3.yaml', deployment('nginx:1').replaceAll('d2', 'd3'));
      expect(await ns('apply', '-f', other)).toBe('deployment.apps/d3 created\n');
      await writeFile(other, deployment('nginx:2').replaceAll('d2', 'd3'));
      expect(await ns('apply', '-f', other)).toBe('deployment.apps/d3 configured\n');
      expect(
        await ns(
          'get',
          'deployment',
          'd3',
          '-o',
          'jsonpath={.spec.template.spec.containers[0].image}',
        ),
      ).toBe('nginx:2');
    });

    it('scales a custom resource through its scale subresource', async () => {
      expect(await ns('scale', 'widget', 'w1', '--replicas=4')).toBe(
        'widget.kubectl.kubets.test/w1 scaled\n',
      );
      expect(await ns('get', 'widget', 'w1', '-o', 'jsonpath={.spec.replicas}')).toBe('4');
      const scale = JSON.parse(
        (
          await kubectl(
            'get',
            '--raw',
            `/apis/kubectl.kubets.test/v1/namespaces/${namespace}/widgets/w1/scale`,
          )
        ).stdout,
      );
      expect(scale).toMatchObject({
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        spec: { replicas: 4 },
        status: { replicas: 0 },
      });
    });

    it('explains a custom resource from the schema its CRD declares', async () => {
      const out = (await kubectl('explain', 'widgets.spec.size')).stdout;
      expect(out).toMatch(/KIND:\s+Widget/);
      expect(out).toMatch(/size\s+<integer>/);
      expect(out).toContain('How many parts it has.');
    });

    it('answers auth can-i from SelfSubjectAccessReviews and SelfSubjectRulesReviews', async () => {
      expect(await ns('auth', 'can-i', 'create', 'deployments')).toBe('yes\n');
      expect((await kubectl('auth', 'can-i', 'get', '/healthz')).stdout).toBe('yes\n');
      const rules = table(await ns('auth', 'can-i', '--list'));
      expect(rules[0]).toEqual(['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
      expect(rules).toContainEqual(['*.*', '[]', '[]', '[*]']);
    });

    it('explains built-in kinds with the fields kube-apiserver 1.20 lists', async () => {
      const pod = (await kubectl('explain', 'pod.spec.containers')).stdout;
      expect(pod).toMatch(/KIND:\s+Pod/);
      expect(pod).toContain('A single application container that you want to run within a pod.');
      // From /openapi/v3 (1.20 has none: kubectl falls back to v2), then /openapi/v2 in protobuf.
      for (const output of ['plaintext', 'plaintext-openapiv2']) {
        for (const [path, fields] of Object.entries(EXPLAINED_FIELDS_1_20)) {
          const listed = explainedFields(
            (await kubectl('explain', path, `--output=${output}`)).stdout,
          );
          // The embedded server's schemas come from a newer release (@kubernetes/client-node's
          // models): every 1.20 field, with the same type, and the fields added since.
          if (embedded)
            expect(listed, `${output} ${path}`).toEqual(expect.arrayContaining([...fields]));
          else expect(listed, `${output} ${path}`).toEqual(fields);
        }
      }
      const deployment = (await kubectl('explain', 'deployment.spec')).stdout;
      expect(deployment).toMatch(/KIND:\s+Deployment/);
      // v3 output names the group apart (GROUP: apps, VERSION: v1); v2 output, as 1.20 gets, does not.
      expect(deployment).toMatch(/VERSION:\s+(apps\/)?v1\n/);
      expect(deployment).toContain('DeploymentSpec is the specification of the desired behavior');
    });
  });
}

const servers: [label: string, start: () => Promise<Server>, embedded: boolean][] = [
  ['the in-memory API server', startApiServer, true],
  ['envtest (kube-apiserver 1.20)', startEnvtest, false],
];
for (const [label, start, embedded] of servers) {
  defineKubectlSuite(
    label,
    async () => {
      const server = await start();
      return { kubeconfigPath: server.kubeconfigPath, stop: () => server.stop() };
    },
    embedded,
  );
}
