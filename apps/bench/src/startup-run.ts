// The startup benchmark (issue 20): import time and RSS of each @kubets package, of a
// kubeconfig load, and of an idle informer + work-queue controller, with
// @kubernetes/client-node measured the same way; every figure from a fresh process
// (startup-probe.mjs), medians over the rounds. The controllers run against the embedded
// in-memory API server (over TLS, so client-node accepts it) holding a few Pods.

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isAlreadyExists } from '@kubets/apimachinery';
import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { loadConfig, RESTClient } from '@kubets/rest';
import { fakePemData, singleUserKubeconfig } from '@kubets/test-utils/kubeconfig';
import { benchNamespace, podFixture } from './fixture.ts';
import {
  type ServiceAccountFiles,
  type StartupSample,
  type StartupSubject,
  startupTable,
  subjectLabel,
  summarizeStartup,
} from './startup.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

/** The published packages, each imported alone (all are dependencies of this app). */
export const startupPackages = [
  '@kubets/apimachinery',
  '@kubets/rest',
  '@kubets/discovery',
  '@kubets/clientset',
  '@kubets/dynamic',
  '@kubets/cache',
  '@kubets/listers',
  '@kubets/informers',
  '@kubets/workqueue',
  '@kubets/record',
  '@kubets/leaderelection',
  '@kubets/codegen',
  '@kubets/apiserver',
] as const;

/** Pods the idle controllers cache. */
const controllerPods = 100;

async function probe(subject: StartupSubject): Promise<StartupSample> {
  const env =
    subject.kind === 'in-cluster-controller'
      ? {
          ...process.env,
          KUBERNETES_SERVICE_HOST: subject.serviceAccount.host,
          KUBERNETES_SERVICE_PORT: subject.serviceAccount.port,
        }
      : process.env;
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', path.join(here, 'startup-probe.mjs'), JSON.stringify(subject)],
    { cwd: here, env, maxBuffer: 1 << 20 },
  );
  const figures = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Omit<
    StartupSample,
    'label'
  >;
  return { label: subjectLabel(subject), ...figures };
}

function writeKubeconfigs(dir: string): { token: string; certificate: string } {
  const write = (name: string, user: Record<string, string>): string => {
    const file = path.join(dir, name);
    writeFileSync(file, singleUserKubeconfig(user));
    return file;
  };
  return {
    token: write('token.kubeconfig', { token: 'startup-benchmark' }),
    certificate: write('certificate.kubeconfig', {
      'client-certificate-data': fakePemData('CERTIFICATE'),
      'client-key-data': fakePemData('PRIVATE KEY'),
    }),
  };
}

/** A service-account directory for the server, as the kubelet mounts one (the server checks no token). */
function writeServiceAccount(dir: string, server: InMemoryApiServer): ServiceAccountFiles {
  if (!server.tls) throw new Error('the in-cluster controllers need the API server over TLS');
  const serviceAccountDir = path.join(dir, 'serviceaccount');
  mkdirSync(serviceAccountDir);
  writeFileSync(path.join(serviceAccountDir, 'token'), 'startup-benchmark\n');
  writeFileSync(path.join(serviceAccountDir, 'ca.crt'), server.tls.caData);
  writeFileSync(path.join(serviceAccountDir, 'namespace'), `${benchNamespace}\n`);
  return { dir: serviceAccountDir, host: '127.0.0.1', port: String(server.port) };
}

async function createPods(kubeconfig: string): Promise<void> {
  const core = new RESTClient({ ...loadConfig({ kubeconfig }), qps: -1 }, { groupVersion: 'v1' });
  const create = async (path: 'namespaces' | 'pods', body: Record<string, unknown>) => {
    try {
      const request = core.post().resource(path);
      if (path === 'pods') request.namespace(benchNamespace);
      await request.body(body).do();
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  };
  await create('namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: benchNamespace },
  });
  for (let i = 0; i < controllerPods; i++) await create('pods', podFixture(i));
}

/** Runs every subject `rounds` times, interleaved; returns the markdown block for the docs. */
export async function runStartup(rounds: number, log: (message: string) => void): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubets-startup-'));
  const server = await startApiServer({ tls: true });
  try {
    await createPods(server.kubeconfigPath);
    const kubeconfigs = writeKubeconfigs(dir);
    const serviceAccount = writeServiceAccount(dir, server);
    const subjects: StartupSubject[] = [
      { kind: 'bare' },
      ...startupPackages.map((specifier): StartupSubject => ({ kind: 'import', specifier })),
      { kind: 'import', specifier: '@kubernetes/client-node' },
      {
        kind: 'kubeconfig',
        client: 'kubets',
        user: 'token',
        format: 'JSON',
        kubeconfig: kubeconfigs.token,
      },
      {
        kind: 'kubeconfig',
        client: 'kubets',
        user: 'client-certificate',
        format: 'JSON',
        kubeconfig: kubeconfigs.certificate,
      },
      // The controllers' kubeconfig: 6 KB of base64 (CA, certificate and key data) for the
      // YAML parser to scan.
      {
        kind: 'kubeconfig',
        client: 'kubets',
        user: 'client-certificate',
        format: 'YAML',
        kubeconfig: server.kubeconfigPath,
      },
      {
        kind: 'kubeconfig',
        client: 'client-node',
        user: 'token',
        format: 'JSON',
        kubeconfig: kubeconfigs.token,
      },
      ...(['kubets', 'client-node'] as const).map(
        (client): StartupSubject => ({
          kind: 'controller',
          client,
          kubeconfig: server.kubeconfigPath,
          namespace: benchNamespace,
        }),
      ),
      ...(['kubets', 'floor', 'floor-importing-kubets'] as const).map(
        (client): StartupSubject => ({
          kind: 'in-cluster-controller',
          client,
          serviceAccount,
          namespace: benchNamespace,
        }),
      ),
    ];
    const samples: StartupSample[] = [];
    for (let round = 0; round < rounds; round++) {
      log(`startup round ${round + 1}/${rounds}: ${subjects.length} fresh processes`);
      for (const subject of subjects) samples.push(await probe(subject));
    }
    return [
      `Startup, ${rounds} round(s), medians; ${os.cpus().length} CPUs, load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(
          ' / ',
        )}; Node ${process.version}; controllers: ${controllerPods} Pods on the embedded API server (TLS); MB = MiB`,
      '',
      startupTable(summarizeStartup(samples)),
    ].join('\n');
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
