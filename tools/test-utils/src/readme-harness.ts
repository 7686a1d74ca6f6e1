// The harness around each package's README example (src/readme.test.ts): a running API
// server that the example finds through KUBECONFIG, as kubectl would, objects written to it
// beforehand, and what the example prints. The server is started by the function passed in
// (`startApiServer` of @kubets/apiserver).
import { deploymentOf } from './workloads.js';

/** What the harness needs of a running API server (`InMemoryApiServer` of @kubets/apiserver). */
export interface KubeconfigServer {
  /** Base URL, e.g. `http://127.0.0.1:12345`. */
  readonly host: string;
  /** A kubeconfig file pointing at the server. */
  readonly kubeconfigPath: string;
  stop(): Promise<void>;
}

/** A started README harness. */
export interface ReadmeHarness<S extends KubeconfigServer> {
  readonly server: S;
  /** The arguments of every `console.log` call since the harness started. */
  readonly logged: unknown[][];
  /** Writes an object to the server, as `kubectl create` would (throws on a non-2xx). */
  create(path: string, body: object): Promise<void>;
  /** Puts `console.log` back and stops the server: register it with `afterAll`. */
  stop(): Promise<void>;
}

/**
 * Starts a server with `start`, points KUBECONFIG at it and captures `console.log` (kept in
 * `logged`, not printed) until `stop()`.
 */
export async function startReadmeHarness<S extends KubeconfigServer>(
  start: () => Promise<S>,
): Promise<ReadmeHarness<S>> {
  const server = await start();
  process.env.KUBECONFIG = server.kubeconfigPath;
  const logged: unknown[][] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    logged.push(args);
  };
  return {
    server,
    logged,
    async create(path, body) {
      const res = await fetch(`${server.host}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    },
    async stop() {
      console.log = log;
      await server.stop();
    },
  };
}

/** A Pod of one nginx container, labelled `app`. */
export function podFixture(namespace: string, name: string, app: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app } },
    spec: { containers: [{ name: 'app', image: 'nginx' }] },
  };
}

/** A Deployment of nginx in `default`, selecting `app: <name>`. */
export function deploymentFixture(name: string, replicas: number) {
  return deploymentOf(name, replicas, { namespace: 'default' }, { name: 'app', image: 'nginx' });
}
