// One startup measurement in a fresh process (started by startup-run.ts):
//
//   node --expose-gc src/startup-probe.mjs '<StartupSubject JSON>'
//
// Plain JavaScript with no static imports: Node's TypeScript stripping would load its own
// WASM module (about 20 MB of RSS) into what is measured. Reads the RSS first, then imports
// only what the subject needs, and prints
// `{ ms, rssBeforeBytes, rssAfterBytes, rssAnonAfterBytes }` as JSON.
// The subjects are described in startup.ts.

const rssBeforeBytes = process.memoryUsage().rss;
const t0 = performance.now();
const subject = JSON.parse(process.argv[2] ?? '{"kind":"bare"}');

const idle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(done) {
  while (!done()) await idle(5);
}

/** A Pod informer + rate-limiting queue + one worker (pod-pipeline.mjs), as a controller runs them. */
async function kubetsController(kubeconfig, namespace) {
  const { loadConfig, RESTClient } = await import('@kubets/rest');
  const { startPodPipeline } = await import('./pod-pipeline.mjs');
  const core = new RESTClient(loadConfig({ kubeconfig }), { groupVersion: 'v1' });
  const pipeline = await startPodPipeline({ core, namespace });
  await until(pipeline.idle);
  return pipeline.stop;
}

/** The kubets controller with `loadConfig({ inCluster: true })`: no kubeconfig, no YAML. */
async function kubetsInClusterController(serviceAccountDir, namespace) {
  const { loadConfig, RESTClient } = await import('@kubets/rest');
  const { startPodPipeline } = await import('./pod-pipeline.mjs');
  const config = loadConfig({ inCluster: true, serviceAccountDir });
  const core = new RESTClient(config, { groupVersion: 'v1' });
  const pipeline = await startPodPipeline({ core, namespace });
  await until(pipeline.idle);
  return pipeline.stop;
}

/**
 * What any Node controller pays, with the in-cluster credentials: `node:https` (required, as
 * kubets does, not imported: an ES module import of it loads undici), a list and a watch
 * parsed with `JSON.parse`, the Pods in a `Map` by key, and an array of keys drained by one
 * worker. No retries, no resync, no rate limits.
 */
async function floorController(serviceAccountDir, namespace) {
  const fs = process.getBuiltinModule('node:fs');
  const https = process.getBuiltinModule('node:https');
  const env = process.env;
  const token = fs.readFileSync(`${serviceAccountDir}/token`, 'utf8').trim();
  const agent = new https.Agent({
    keepAlive: true,
    ca: fs.readFileSync(`${serviceAccountDir}/ca.crt`),
  });
  const base = `https://${env.KUBERNETES_SERVICE_HOST}:${env.KUBERNETES_SERVICE_PORT}/api/v1/namespaces/${namespace}/pods`;
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const get = (url) =>
    new Promise((resolve, reject) => {
      const request = https.get(url, { agent, headers }, (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`GET ${url}: HTTP ${response.statusCode}`));
          return;
        }
        response.setEncoding('utf8');
        resolve(response);
      });
      request.on('error', reject);
    });
  const pods = new Map();
  const keyOf = (pod) => `${pod.metadata.namespace}/${pod.metadata.name}`;
  let keys = [];
  let wake;
  const enqueue = (key) => {
    keys.push(key);
    wake?.();
  };
  let stopped = false;
  void (async () => {
    while (!stopped) {
      if (keys.length === 0) {
        await new Promise((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      const batch = keys;
      keys = [];
      for (const key of batch) pods.get(key);
    }
  })();
  const list = await get(base);
  let text = '';
  for await (const chunk of list) text += chunk;
  const { items, metadata } = JSON.parse(text);
  for (const pod of items) {
    pods.set(keyOf(pod), pod);
    enqueue(keyOf(pod));
  }
  const watch = await get(
    `${base}?watch=1&allowWatchBookmarks=true&resourceVersion=${metadata.resourceVersion}`,
  );
  let partial = '';
  watch.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const { type, object } = JSON.parse(line);
      if (type === 'BOOKMARK' || type === 'ERROR') continue;
      if (type === 'DELETED') pods.delete(keyOf(object));
      else pods.set(keyOf(object), object);
      enqueue(keyOf(object));
    }
  });
  watch.on('error', () => undefined);
  await until(() => keys.length === 0);
  return () => {
    stopped = true;
    wake?.();
    watch.destroy();
    agent.destroy();
  };
}

/** client-node's makeInformer + a plain array queue + one worker (pod-pipeline.mjs). */
async function clientNodeController(kubeconfig, namespace) {
  const { startClientNodePipeline } = await import('./pod-pipeline.mjs');
  const pipeline = await startClientNodePipeline({ kubeconfig, namespace });
  await until(pipeline.idle);
  return pipeline.stop;
}

async function measure() {
  let stop;
  switch (subject.kind) {
    case 'bare':
      break;
    case 'import':
      await import(subject.specifier);
      break;
    case 'kubeconfig':
      if (subject.client === 'kubets') {
        const { loadConfig } = await import('@kubets/rest');
        loadConfig({ kubeconfig: subject.kubeconfig });
      } else {
        const { KubeConfig } = await import('@kubernetes/client-node');
        new KubeConfig().loadFromFile(subject.kubeconfig);
      }
      break;
    case 'controller':
      stop =
        subject.client === 'kubets'
          ? await kubetsController(subject.kubeconfig, subject.namespace)
          : await clientNodeController(subject.kubeconfig, subject.namespace);
      break;
    case 'in-cluster-controller':
      if (subject.client === 'floor-importing-kubets') {
        // The code of the kubets controller's packages, loaded and never run.
        await import('@kubets/rest');
        await import('@kubets/cache');
        await import('@kubets/workqueue');
      }
      stop =
        subject.client === 'kubets'
          ? await kubetsInClusterController(subject.serviceAccount.dir, subject.namespace)
          : await floorController(subject.serviceAccount.dir, subject.namespace);
      break;
    default:
      throw new Error(`unknown subject ${JSON.stringify(subject)}`);
  }
  const ms = performance.now() - t0;
  if (subject.kind === 'controller' || subject.kind === 'in-cluster-controller') {
    // Idle: what a controller that waits for events holds.
    await idle(1000);
    globalThis.gc?.();
  }
  const rssAfterBytes = process.memoryUsage().rss;
  stop?.();
  return { ms, rssBeforeBytes, rssAfterBytes, rssAnonAfterBytes: rssAnon() };
}

/** RssAnon of /proc/self/status in bytes (as startup.ts' parseRssAnon reads it); null off Linux. */
function rssAnon() {
  let status;
  try {
    // node:fs is loaded by Node's own bootstrap: getting it adds nothing to what was measured.
    status = process.getBuiltinModule('node:fs').readFileSync('/proc/self/status', 'utf8');
  } catch {
    return null;
  }
  const match = /^RssAnon:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : null;
}

measure().then(
  (sample) => {
    process.stdout.write(`${JSON.stringify(sample)}\n`);
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
