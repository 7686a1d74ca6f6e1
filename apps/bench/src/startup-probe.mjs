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
    default:
      throw new Error(`unknown subject ${JSON.stringify(subject)}`);
  }
  const ms = performance.now() - t0;
  if (subject.kind === 'controller') {
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
