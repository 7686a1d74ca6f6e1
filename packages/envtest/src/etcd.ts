// etcd, as controller-runtime's controlplane.Etcd runs it: a single member on loopback ports,
// its data in the temp dir, ready once /health says so.
import { type EnvtestFlags, renderFlags } from './arguments.js';
import { probeGet } from './probe.js';
import { type ManagedProcess, startProcess } from './process.js';
import type { Startup } from './startup.js';

/** What etcd is started with. */
export interface EtcdSettings {
  readonly binary: string;
  /** The flags its `--help` lists. */
  readonly known: ReadonlySet<string>;
  /** The user's flags, merged over the defaults. */
  readonly flags: EnvtestFlags | undefined;
  readonly dataDir: string;
  readonly logPath: string;
  readonly env: NodeJS.ProcessEnv;
  readonly clientPort: number;
  readonly peerPort: number;
}

/** A running etcd. */
export interface RunningEtcd {
  readonly process: ManagedProcess;
  /** Its client URL: `http://127.0.0.1:PORT`. */
  readonly endpoint: string;
}

/** etcd's command line: envtest's defaults, then the user's flags. */
export function etcdArgs(settings: EtcdSettings): string[] {
  const endpoint = `http://127.0.0.1:${settings.clientPort}`;
  const peerUrl = `http://127.0.0.1:${settings.peerPort}`;
  const defaults: Record<string, string> = {
    name: 'envtest',
    'data-dir': settings.dataDir,
    'listen-client-urls': endpoint,
    'advertise-client-urls': endpoint,
    'listen-peer-urls': peerUrl,
    'initial-advertise-peer-urls': peerUrl,
    'initial-cluster': `envtest=${peerUrl}`,
  };
  // Durability is pointless for a throw-away test store; etcd 3.5+ can skip fsync.
  if (settings.known.has('unsafe-no-fsync')) defaults['unsafe-no-fsync'] = 'true';
  // etcd 3.4 defaults to the deprecated capnslog logger and warns about it.
  if (settings.known.has('logger')) defaults.logger = 'zap';
  return renderFlags(defaults, settings.flags);
}

/** Starts etcd as part of `startup` and resolves once `/health` reports it healthy. */
export async function startEtcd(settings: EtcdSettings, startup: Startup): Promise<RunningEtcd> {
  const endpoint = `http://127.0.0.1:${settings.clientPort}`;
  const etcd = startup.watch(
    startProcess('etcd', settings.binary, etcdArgs(settings), settings.logPath, settings.env),
  );
  await startup.waitFor(etcd, `etcd to report healthy at ${endpoint}/health`, 50, async () => {
    const res = await probeGet(`${endpoint}/health`, { signal: startup.signal, timeoutMs: 2_000 });
    if (res.status !== 200) throw new Error(`/health answered ${res.status}: ${res.body}`);
    const health = (JSON.parse(res.body) as { health?: unknown }).health;
    if (health !== 'true' && health !== true) throw new Error(`/health said ${res.body}`);
    return true;
  });
  return { process: etcd, endpoint };
}
