import { parseArgs } from 'node:util';
import { parseRuntimes, type Runtime } from './runtimes.ts';
import { defaultVariants, type Variant, variants } from './stats.ts';

/** The command line of `pnpm bench` / `node src/main.ts`. */
export interface BenchArgs {
  pods: number;
  rounds: number;
  kubeconfig: string | undefined;
  variants: Variant[];
  /**
   * The runtimes the runners run on, side by side in every round (`--runtimes`; default Node
   * alone). client-go runs once per round whatever the list, being Go.
   */
  runtimes: Runtime[];
  /** Write docs/benchmarks.md (default: only for runs of at least 10,000 Pods). */
  docs: boolean;
  /** Times every Pod is patched in the update window (a longer window, less noise). */
  updatesPerPod: number;
  /** Parallel create/patch requests. */
  concurrency: number;
  /** Per-phase timeout of a runner, in milliseconds. */
  timeoutMs: number;
  /** Directory for `node --cpu-prof` profiles of the kubets runners; none when undefined. */
  cpuProf: string | undefined;
  /** Append every runner's result to this JSON-lines file as it comes. */
  jsonl: string | undefined;
  /** Run the startup benchmark (import time and RSS, idle controller); default on. */
  startup: boolean;
  /** Run only the startup benchmark (no envtest, no informer benchmark). */
  startupOnly: boolean;
  /**
   * With the startup benchmark, measure the install size of `@kubets/controller` (npm, from
   * the packed tarballs); default on, `--no-install-size` skips it.
   */
  installSize: boolean;
  /** Run the reconcile-throughput benchmark after the informer rounds; default on. */
  reconcile: boolean;
  help: boolean;
}

export const usage = `Usage: node src/main.ts [options]      (root: pnpm bench -- [options])

  --pods N          Pods to create and cache (default 10000; alias --count)
  --rounds R        rounds; each runs every variant once, in alternating order (default 3)
  --kubeconfig P    use this cluster instead of starting envtest (Pods go to namespace kubets-bench)
  --variants LIST   comma-separated subset of: ${variants.join(', ')}
                    (default: all but the HTTP/2 ones, kubets-h2 and kubets-h2-handler)
  --runtimes LIST   run the runners on each of: node, bun, deno (default node), side by side
                    in every round; Bun and Deno from scripts/provision-runtimes.sh
  --updates-per-pod K
                    patch every Pod K times in the update window, pass after pass (default 1);
                    CPU is still reported per 10,000 update events
  --concurrency C   parallel create/patch requests (default 32)
  --timeout S       seconds each runner phase may take (default 600)
  --docs            write docs/benchmarks.md (default only when --pods >= 10000)
  --no-docs         never write docs/benchmarks.md
  --jsonl FILE      append each runner's result to FILE (JSON lines) as it arrives
  --startup-only    only the startup benchmark: import time and RSS of each package, an idle
                    controller (embedded API server, no envtest), client-node alongside
  --no-startup      skip the startup benchmark
  --no-install-size skip the install size measured with the startup benchmark (npm installs
                    @kubets/controller from the packed tarballs into a temp project)
  --no-reconcile    skip the reconcile-throughput benchmark (a manager with a no-op reconciler
                    taking every Pod through 1, 2 and 4 workers, each run in a fresh process)
  --cpu-prof DIR    profile the kubets runners into DIR: CPU (whole run, update window), relist allocations
  --help`;

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value.replaceAll('_', ''));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
  return n;
}

/** Parses the benchmark's flags (a leading `--` left by pnpm is ignored). */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  const { values } = parseArgs({
    args,
    options: {
      pods: { type: 'string' },
      count: { type: 'string' },
      rounds: { type: 'string' },
      kubeconfig: { type: 'string' },
      variants: { type: 'string' },
      runtimes: { type: 'string' },
      concurrency: { type: 'string' },
      'updates-per-pod': { type: 'string' },
      timeout: { type: 'string' },
      docs: { type: 'boolean' },
      'no-docs': { type: 'boolean' },
      'cpu-prof': { type: 'string' },
      jsonl: { type: 'string' },
      'startup-only': { type: 'boolean' },
      'no-startup': { type: 'boolean' },
      'no-install-size': { type: 'boolean' },
      'no-reconcile': { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
  const pods = positive('pods', values.pods ?? values.count, 10_000);
  let selected: Variant[] = [...defaultVariants];
  if (values.variants !== undefined) {
    selected = values.variants.split(',').map((v) => {
      const name = v.trim();
      if (!(variants as readonly string[]).includes(name)) {
        throw new Error(`unknown variant ${name}; one of ${variants.join(', ')}`);
      }
      return name as Variant;
    });
  }
  return {
    pods,
    rounds: positive('rounds', values.rounds, 3),
    kubeconfig: values.kubeconfig,
    variants: selected,
    runtimes: values.runtimes === undefined ? ['node'] : parseRuntimes(values.runtimes),
    docs: values['no-docs'] ? false : (values.docs ?? pods >= 10_000),
    updatesPerPod: positive('updates-per-pod', values['updates-per-pod'], 1),
    concurrency: positive('concurrency', values.concurrency, 32),
    timeoutMs: positive('timeout', values.timeout, 600) * 1000,
    cpuProf: values['cpu-prof'],
    jsonl: values.jsonl,
    startup: !(values['no-startup'] ?? false),
    startupOnly: values['startup-only'] ?? false,
    installSize: !(values['no-install-size'] ?? false),
    reconcile: !(values['no-reconcile'] ?? false),
    help: values.help ?? false,
  };
}
