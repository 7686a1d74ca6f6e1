// The informer benchmark of issue 9: kubets against @kubernetes/client-node on a real
// kube-apiserver, side by side in one run.
//
//   node src/main.ts [--pods 10000] [--rounds 3] [--kubeconfig PATH]     (pnpm bench at the root)
//
// 1. Starts envtest (etcd + kube-apiserver), or uses --kubeconfig, and creates N Pods of
//    about 2 KB in namespace kubets-bench.
// 2. Each round runs every variant once, in alternating order, each in its own process
//    (`node --expose-gc src/run-*.ts`, a fresh heap; the client-go variant is a Go binary,
//    client-go.ts): initial sync, heap per object, RSS; then this process patches every Pod
//    once (K times with --updates-per-pod K) while the runner measures its CPU from the first
//    to the (N × K)-th update; then the runner forces a relist and samples its peak memory.
// 3. Prints the medians, the ratios to client-node and to the floor, the BRIEF §6 and issue 20
//    targets, the issue 20 CPU ratios paired within each round, as markdown, and (for runs of 10,000 Pods or more, or with --docs) writes them
//    to docs/benchmarks.md.
// 4. Then the reconcile throughput (reconcile-run.ts, --no-reconcile skips it): a manager with
//    a no-op reconciler takes every Pod through 1, 2 and 4 workers, each run in a fresh
//    process, every round; written to docs/benchmarks.md in a block per Pod count.
// 5. Before all that, the startup benchmark (startup-run.ts; --startup-only runs it alone, with no
//    envtest): import time and RSS of each package and of an idle controller, each in a fresh
//    process, client-node alongside; then the install size of @kubets/controller (npm, from the
//    packed tarballs, install-size-run.ts); written to docs/benchmarks.md between its own markers.

import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAlreadyExists } from '@kubets/apimachinery';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { loadConfig, PatchType, RESTClient } from '@kubets/rest';
import { type BenchArgs, parseBenchArgs, usage } from './args.ts';
import { prepareClientGo } from './client-go.ts';
import { type BlockKey, replaceBlock } from './docs-block.ts';
import {
  benchNamespace,
  generationPatch,
  generationValue,
  podFixture,
  podName,
} from './fixture.ts';
import { measureInstallSize } from './install-size-run.ts';
import { pool } from './pool.ts';
import { type ReconcileSample, reconcileTable, reconcileWorkers } from './reconcile.ts';
import type { ParentMessage, RunnerConfig, RunnerMessage } from './runner.ts';
import {
  notOn,
  type RunnerLaunch,
  type Runtime,
  runnerLaunch,
  runtimeBinaries,
  runtimesTable,
  runtimeVersion,
  unsupportedReasons,
} from './runtimes.ts';
import { runStartup } from './startup-run.ts';
import {
  checkIssue20Targets,
  checkTargets,
  completeResult,
  pairedCpuRatios,
  pairedRatiosTable,
  type RunnerResult,
  resultsTable,
  roundOrder,
  summarize,
  targetsTable,
  type Variant,
} from './stats.ts';
import { describeWakeCosts, probeWakeCosts, type WakeCost } from './wake-cost.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const docsPath = path.join(repoRoot, 'docs/benchmarks.md');

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function createPods(core: RESTClient, pods: number, concurrency: number): Promise<void> {
  try {
    await core
      .post()
      .resource('namespaces')
      .body({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: benchNamespace } })
      .do();
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  const existing = await core.get().namespace(benchNamespace).resource('pods').doList();
  const have = new Set(
    existing.items.map((p) => (p as { metadata: { name: string } }).metadata.name),
  );
  const missing: number[] = [];
  for (let i = 0; i < pods; i++) if (!have.has(podName(i))) missing.push(i);
  const t0 = performance.now();
  await pool(missing.length, concurrency, async (k) => {
    const i = missing[k]!;
    try {
      await core.post().namespace(benchNamespace).resource('pods').body(podFixture(i)).do();
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  });
  log(
    `created ${missing.length} Pods (${have.size} existed) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}

/** Patches every Pod `args.updatesPerPod` times, one pass over all Pods after the other. */
async function patchAll(core: RESTClient, args: BenchArgs, generation: string): Promise<number> {
  const t0 = performance.now();
  for (let pass = 0; pass < args.updatesPerPod; pass++) {
    const body = generationPatch(generationValue(generation, pass));
    await pool(args.pods, args.concurrency, async (i) => {
      await core
        .patch(PatchType.MergePatch)
        .namespace(benchNamespace)
        .resource('pods')
        .name(podName(i))
        .body(body)
        .do();
    });
  }
  return performance.now() - t0;
}

const runnerScripts: Readonly<Record<Exclude<Variant, 'client-go'>, string>> = {
  floor: 'run-floor.ts',
  kubets: 'run-kubets.ts',
  'kubets-handler': 'run-kubets.ts',
  'client-node': 'run-client-node.ts',
  'kubets-transform': 'run-kubets.ts',
  'kubets-metadata': 'run-kubets.ts',
  'kubets-h2': 'run-kubets.ts',
  'kubets-h2-handler': 'run-kubets.ts',
};

/** The runner process of `variant` on `runtime`, with the IPC channel runner.ts speaks. */
function startRunner(
  args: BenchArgs,
  variant: Variant,
  config: RunnerConfig,
  clientGoBinary: string | undefined,
  runtime: Runtime,
  binary: string,
): ChildProcess {
  if (variant === 'client-go') {
    if (clientGoBinary === undefined) throw new Error('the client-go runner was not built');
    // Node's IPC channel in JSON mode is one JSON message per line on NODE_CHANNEL_FD: the Go
    // runner reads and writes it directly.
    return spawn(clientGoBinary, [JSON.stringify(config)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
    });
  }
  // --cpu-prof is a Node flag: the runners on Bun and Deno run unprofiled.
  const profiled = args.cpuProf !== undefined && variant !== 'client-node' && runtime === 'node';
  if (profiled) config.profileDir = path.resolve(args.cpuProf!);
  const launch: RunnerLaunch = runnerLaunch(
    runtime,
    binary,
    profiled ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args.cpuProf!)}`] : [],
  );
  return fork(path.join(here, runnerScripts[variant]), [JSON.stringify(config)], {
    ...launch,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** Runs one variant in its own process; this process is the patcher. */
function runOne(
  core: RESTClient,
  args: BenchArgs,
  kubeconfig: string,
  variant: Variant,
  round: number,
  clientGoBinary: string | undefined,
  runtime: Runtime = 'node',
  binary: string = process.execPath,
): Promise<RunnerResult> {
  const config: RunnerConfig = {
    variant,
    round,
    pods: args.pods,
    updatesPerPod: args.updatesPerPod,
    namespace: benchNamespace,
    kubeconfig,
    timeoutMs: args.timeoutMs,
  };
  const child = startRunner(args, variant, config, clientGoBinary, runtime, binary);
  return new Promise<RunnerResult>((resolve, reject) => {
    let result: RunnerResult | undefined;
    child.on('message', (m: RunnerMessage) => {
      if (m.type === 'synced') {
        const generation = `r${round}-${variant}-${Date.now()}`;
        const message: ParentMessage = { type: 'patch', generation };
        child.send(message);
        patchAll(core, args, generation).then(
          (ms) =>
            log(
              `${variant}: patched ${args.pods} Pods ${args.updatesPerPod}× in ${(ms / 1000).toFixed(1)} s`,
            ),
          (err: unknown) => {
            child.kill();
            reject(err);
          },
        );
      } else if (m.type === 'result') {
        result = completeResult(m.result);
      } else if (m.type === 'error') {
        reject(new Error(`${variant} runner failed: ${m.message}`));
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`${variant} runner exited with code ${code} and no result`));
    });
  });
}

async function serverFacts(core: RESTClient, pods: number) {
  const version = (await core.get().absPath('version').do()) as { gitVersion?: string };
  const raw = await core.get().namespace(benchNamespace).resource('pods').doRaw();
  return { kubeApiserver: version.gitVersion ?? 'unknown', listBytes: raw.body.length, pods };
}

function clientNodeVersion(): string {
  try {
    const pkg = readFileSync(
      path.join(here, '../node_modules/@kubernetes/client-node/package.json'),
      'utf8',
    );
    return (JSON.parse(pkg) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function renderResults(
  args: BenchArgs,
  results: readonly RunnerResult[],
  facts: { kubeApiserver: string; listBytes: number },
  command: string,
  skipped: readonly string[],
  wakeCosts: readonly WakeCost[] | undefined,
): string {
  const summaries = summarize(results);
  const pairedTable = pairedRatiosTable(pairedCpuRatios(results));
  // Per-round ratios: the variants of one round ran minutes apart, so their ratio is less
  // exposed to the machine's load than a ratio of medians taken over separate rounds.
  const paired = pairedTable === '' ? [] : ['', pairedTable];
  const load = os.loadavg().map((l) => l.toFixed(1));
  return [
    `Run of ${new Date().toISOString()}: \`${command}\``,
    '',
    `- machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.platform()} ${os.release()}; load average at the end ${load.join(' / ')}`,
    ...(wakeCosts === undefined
      ? []
      : [
          `- a wake-up with nothing to do costs a process ${describeWakeCosts(wakeCosts)} (\`wake-cost.ts\`, after the rounds)`,
        ]),
    `- Node ${process.version}, kube-apiserver ${facts.kubeApiserver} (${args.kubeconfig ? 'the --kubeconfig cluster' : 'envtest'}), @kubernetes/client-node ${clientNodeVersion()}`,
    `- ${args.pods} Pods, list body ${(facts.listBytes / 1e6).toFixed(1)} MB (${Math.round(facts.listBytes / args.pods)} B per Pod); ${args.updatesPerPod} update(s) per Pod in the update window; ${args.rounds} round(s), medians; KB = 1000 bytes`,
    ...skipped.map((reason) => `- not run: ${reason}`),
    '',
    resultsTable(summaries),
    '',
    targetsTable(checkTargets(summaries)),
    '',
    targetsTable(checkIssue20Targets(summaries, args.pods), 'issue 20'),
    ...paired,
  ].join('\n');
}

/**
 * A run on several runtimes: the runtimes side by side, then each runtime's full table (the
 * targets are Node's, and shown only with Node's table).
 */
function renderRuntimes(
  args: BenchArgs,
  resultsByRuntime: ReadonlyMap<Runtime, readonly RunnerResult[]>,
  versions: Readonly<Partial<Record<Runtime, string>>>,
  facts: { kubeApiserver: string; listBytes: number },
  command: string,
  skipped: readonly string[],
  wakeCosts: readonly WakeCost[] | undefined,
): string {
  const sections = [
    `Runtimes side by side, medians (runners on ${args.runtimes.map((r) => versions[r] ?? r).join(', ')}; the patcher, envtest and these tables on Node):`,
    '',
    runtimesTable(resultsByRuntime, versions),
  ];
  for (const [runtime, results] of resultsByRuntime) {
    if (results.length === 0) continue;
    const title = `**${versions[runtime] ?? runtime}**`;
    const body =
      runtime === 'node'
        ? renderResults(args, results, facts, command, skipped, wakeCosts)
        : resultsTable(summarize(results));
    sections.push('', title, '', body);
  }
  return sections.join('\n');
}

function writeDocs(block: string, pods: BlockKey): void {
  let text: string;
  try {
    text = readFileSync(docsPath, 'utf8');
  } catch {
    text = '# Benchmarks\n';
  }
  // One generated block per Pod count, so a 100,000-Pod run does not replace the 10,000 one.
  const next = replaceBlock(text, pods, block);
  mkdirSync(path.dirname(docsPath), { recursive: true });
  writeFileSync(docsPath, next);
  log(`wrote ${path.relative(repoRoot, docsPath)}`);
}

async function measureReconciles(
  args: BenchArgs,
  kubeconfig: string,
  kubeApiserver: string,
  command: string,
): Promise<string> {
  const samples: ReconcileSample[] = [];
  for (let round = 0; round < args.rounds; round++) {
    const order = round % 2 === 0 ? reconcileWorkers : [...reconcileWorkers].reverse();
    for (const workers of order) {
      const child = spawn(
        process.execPath,
        [
          '--expose-gc',
          path.join(here, 'reconcile-run.ts'),
          kubeconfig,
          String(args.pods),
          String(workers),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      const timer = setTimeout(() => child.kill(), args.timeoutMs);
      const [code] = (await once(child, 'exit')) as [number | null];
      clearTimeout(timer);
      if (code !== 0)
        throw new Error(`reconcile-run.ts with ${workers} worker(s) exited with ${code}`);
      const sample = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ReconcileSample;
      samples.push(sample);
      log(
        `reconcile round ${round + 1}/${args.rounds}, ${workers} worker(s): all ${sample.reconciled} reconciled in ${(sample.elapsedMs / 1000).toFixed(2)} s, ${sample.cpuSeconds.toFixed(2)} CPU-s, peak RSS ${(sample.peakRssBytes / 1e6).toFixed(0)} MB`,
      );
    }
  }
  return [
    `### Reconcile throughput, ${args.pods.toLocaleString('en-US')} Pods`,
    '',
    `\`${command}\`: a manager (\`@kubets/controller\`) with one controller for the Pods and a reconciler that only counts, from \`manager.start\` to every Pod reconciled once (list, sync, queue and workers), each run in a fresh process; medians of ${args.rounds} round(s); Node ${process.version}, kube-apiserver ${kubeApiserver}.`,
    '',
    reconcileTable(samples),
  ].join('\n');
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (args.startup || args.startupOnly) {
    let block = await runStartup(args.rounds, log);
    if (args.installSize) block = `${block}\n\n${await measureInstallSize(log)}`;
    process.stdout.write(`\n${block}\n`);
    if (args.docs) writeDocs(block, 'startup');
    if (args.startupOnly) return;
  }
  let envtest: Envtest | undefined;
  let kubeconfig = args.kubeconfig;
  try {
    if (kubeconfig === undefined) {
      log('starting envtest (etcd + kube-apiserver)');
      envtest = await startEnvtest();
      kubeconfig = envtest.kubeconfigPath;
      log(`envtest up in ${(envtest.startDurationMs / 1000).toFixed(1)} s at ${envtest.host}`);
    }
    const rest = loadConfig({ kubeconfig });
    const core = new RESTClient({ ...rest, qps: -1 }, { groupVersion: 'v1' });
    await createPods(core, args.pods, args.concurrency);
    const facts = await serverFacts(core, args.pods);
    log(
      `kube-apiserver ${facts.kubeApiserver}; list of ${args.pods} Pods is ${(facts.listBytes / 1e6).toFixed(1)} MB`,
    );

    let selected = args.variants;
    const skipped: string[] = [];
    let clientGoBinary: string | undefined;
    if (selected.includes('client-go')) {
      const prepared = await prepareClientGo({ log });
      if ('binary' in prepared) {
        clientGoBinary = prepared.binary;
      } else {
        log(`client-go variant skipped: ${prepared.skipped}`);
        skipped.push(`client-go: ${prepared.skipped}`);
        selected = selected.filter((v) => v !== 'client-go');
      }
    }

    const binaries = runtimeBinaries(repoRoot, args.runtimes);
    for (const runtime of args.runtimes) {
      for (const variant of notOn(runtime).filter((v) => selected.includes(v))) {
        const reason = `${variant} on ${runtime}: ${unsupportedReasons[variant] ?? 'not supported'}`;
        log(`skipped: ${reason}`);
        skipped.push(reason);
      }
    }
    const versions: Partial<Record<Runtime, string>> = {};
    for (const runtime of args.runtimes) {
      versions[runtime] = runtimeVersion(runtime, binaries[runtime]);
    }
    const resultsByRuntime = new Map<Runtime, RunnerResult[]>(
      args.runtimes.map((runtime) => [runtime, []]),
    );
    for (let round = 0; round < args.rounds; round++) {
      // Each round runs every runtime's variants back to back against the same server.
      for (const runtime of args.runtimes) {
        // client-go is a Go binary: it runs once per round, with Node's variants.
        const onRuntime = selected.filter(
          (v) => (v !== 'client-go' || runtime === 'node') && !notOn(runtime).includes(v),
        );
        for (const variant of roundOrder(round, onRuntime)) {
          const on = args.runtimes.length > 1 ? ` on ${runtime}` : '';
          log(`round ${round + 1}/${args.rounds}: ${variant}${on}`);
          const result = await runOne(
            core,
            args,
            kubeconfig,
            variant,
            round,
            clientGoBinary,
            runtime,
            binaries[runtime],
          );
          resultsByRuntime.get(runtime)?.push(result);
          if (args.jsonl !== undefined) {
            appendFileSync(args.jsonl, `${JSON.stringify({ ...result, runtime })}\n`);
          }
          log(
            `${variant}${on}: sync ${(result.syncMs / 1000).toFixed(2)} s, ${(result.heapPerObjectBytes / 1000).toFixed(2)} KB/object, ` +
              `${result.updateCpuSeconds.toFixed(2)} CPU-s and ${result.updateSleeps} sleeps for ${result.updates} updates, relist peak ${result.relistPeakRatio.toFixed(2)}× store`,
          );
        }
      }
    }

    const flags = process.argv.slice(2).filter((a) => a !== '--');
    const command = flags.length > 0 ? `pnpm bench -- ${flags.join(' ')}` : 'pnpm bench';
    const wakeCosts = await probeWakeCosts();
    const reconcileBlock = args.reconcile
      ? await measureReconciles(args, kubeconfig, facts.kubeApiserver, command)
      : undefined;
    if (args.runtimes.length === 1 && args.runtimes[0] === 'node') {
      const results = resultsByRuntime.get('node') ?? [];
      const block = renderResults(args, results, facts, command, skipped, wakeCosts);
      process.stdout.write(`\n${block}\n`);
      if (args.docs) writeDocs(block, args.pods);
    } else {
      const block = renderRuntimes(
        args,
        resultsByRuntime,
        versions,
        facts,
        command,
        skipped,
        wakeCosts,
      );
      process.stdout.write(`\n${block}\n`);
      if (args.docs) writeDocs(block, 'runtimes');
    }
    if (reconcileBlock !== undefined) {
      process.stdout.write(`\n${reconcileBlock}\n`);
      if (args.docs) writeDocs(reconcileBlock, `reconcile-${args.pods}`);
    }
    if (!args.docs) log('docs/benchmarks.md not updated (runs under 10,000 Pods need --docs)');
  } finally {
    await envtest?.stop();
  }
}

main().catch((err: unknown) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
