// A leader-election candidate for the e2e test, run as its own process with `node` (Node 24
// strips the types). It imports the packages by name, so it runs the built `dist`.
//
//   node candidate.ts <kubeconfig> <namespace> <lease> <identity> <leaseMs> <renewMs> <retryMs>
//
// It prints `new leader <id>`, `started leading <id>` and `stopped leading <id>` lines, and
// runs the election again after leadership ends (as a restarted pod would), until SIGTERM.
import type { LogFields, Logger } from '@kubets/apimachinery';
import { Clientset } from '@kubets/clientset';
import { LeaderElector, LeaseLock } from '@kubets/leaderelection';
import { loadConfig } from '@kubets/rest';

const [kubeconfig, namespace, leaseName, identity, leaseMs, renewMs, retryMs] =
  process.argv.slice(2);
if (!kubeconfig || !namespace || !leaseName || !identity || !leaseMs || !renewMs || !retryMs) {
  process.stderr.write(
    'usage: candidate.ts <kubeconfig> <namespace> <lease> <identity> <leaseMs> <renewMs> <retryMs>\n',
  );
  process.exit(2);
}

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const toStderr = (level: string) => (message: string, fields?: LogFields) => {
  process.stderr.write(
    `${new Date().toISOString()} ${level} ${identity}: ${message} ${JSON.stringify(fields ?? {})}\n`,
  );
};
// Debug lines too (each renewal): when a test fails, they show what the leader believed.
const logger: Logger = {
  debug: toStderr('D'),
  info: toStderr('I'),
  warn: toStderr('W'),
  error: toStderr('E'),
};

const clientset = new Clientset({ ...loadConfig({ kubeconfig }), qps: -1, timeoutMs: 5_000 });
const shutdown = new AbortController();
process.on('SIGTERM', () => shutdown.abort());

while (!shutdown.signal.aborted) {
  const elector = new LeaderElector({
    lock: new LeaseLock({ namespace, name: leaseName, client: clientset, identity }),
    leaseDurationMs: Number(leaseMs),
    renewDeadlineMs: Number(renewMs),
    retryPeriodMs: Number(retryMs),
    name: leaseName,
    logger,
    callbacks: {
      onStartedLeading: (signal) => {
        say(`started leading ${identity}`);
        // The "controller": works until leadership ends.
        const timer = setInterval(() => {}, 1_000);
        signal.addEventListener('abort', () => clearInterval(timer), { once: true });
      },
      onStoppedLeading: () => say(`stopped leading ${identity}`),
      onNewLeader: (leader) => say(`new leader ${leader}`),
    },
  });
  await elector.run(shutdown.signal);
}
process.exit(0);
