import { Console } from 'node:console';
import { homedir } from 'node:os';
import type { InMemoryApiServer } from '@kubets/apiserver';
import { Clientset } from '@kubets/clientset';
import {
  type Config,
  configSource,
  type Logger,
  loadConfig,
  type ConfigSource as RestConfigSource,
} from '@kubets/rest';
import { errorMessage, klog, klogLogger } from './klog.ts';
import { LineLog, type LinePattern } from './lines.ts';
import { stopSignal } from './signals.ts';

/** The flags that say where the cluster is. */
export interface ClusterFlags {
  readonly kubeconfig?: string | undefined;
  readonly master?: string | undefined;
  /** Use the embedded API server and the demo scenario even when a cluster is configured. */
  readonly demo?: boolean | undefined;
}

/**
 * The REST clients' logger, at the levels `@kubets/rest` chose: its first retry after a lost
 * connection is a warning, one after `Retry-After` an info line, client-side throttling waits
 * are debug lines (shown from `-v=4`), as in client-go programs.
 */
function restLogger(): Logger {
  return klogLogger('@kubets/rest');
}

/** Where {@link connect} found a configuration: `flags` for `--kubeconfig`/`--master`. */
export type ConfigSource = 'flags' | Exclude<RestConfigSource, 'explicit'>;

/**
 * Where a cluster configuration comes from, in the order client-go programs look (and
 * `loadConfig` does): the `--kubeconfig`/`--master` flags, `KUBECONFIG`, `~/.kube/config`,
 * the in-cluster service account environment. `undefined` when there is none: the apps
 * then run in demo mode.
 */
export function findConfigSource(
  flags: ClusterFlags,
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = homedir(),
): ConfigSource | undefined {
  const source = configSource({
    kubeconfig: flags.kubeconfig,
    master: flags.master,
    env,
    homeDir: home,
  });
  return source === 'explicit' ? 'flags' : source;
}

/** What a demo scenario works with. */
export interface Demo {
  /** The embedded API server (`server.kubeconfigPath` works with kubectl while the demo runs). */
  readonly server: InMemoryApiServer;
  /** The app's configuration, pointing at the embedded server. */
  readonly config: Config;
  /** A clientset for the embedded server, to create, change and delete objects. */
  readonly clientset: Clientset;
  /** Everything the app printed (stdout and stderr) since the demo started. */
  readonly output: LineLog;
  /** Aborts on SIGINT/SIGTERM, or when the app ends before the scenario does. */
  readonly signal: AbortSignal;
  /** Logs a step of the scenario as a klog line `demo: <message>`. */
  step(message: string): void;
  /**
   * Waits until the app prints a line matching `pattern` (from line `since` on; see
   * `output.mark()`), rejecting after 60 s.
   */
  waitFor(pattern: LinePattern, since?: number): Promise<string>;
}

/** The scripted scenario an app plays on the embedded API server. */
export interface DemoScenario {
  /** Runs before {@link connect} returns: create what the app should find in its first list. */
  setup?(demo: Demo): Promise<void>;
  /**
   * Runs while the app does; once it resolves the app is stopped as on SIGTERM (its
   * {@link Cluster.signal} aborts). Without it the app ends by itself.
   */
  run?(demo: Demo): Promise<void>;
}

/** Where an app runs. */
export interface Cluster {
  /** The REST configuration to build clients from. */
  readonly config: Config;
  /**
   * Aborts on SIGINT or SIGTERM — and in demo mode when the scenario is over. The app stops
   * when it aborts (the Go programs' `stopCh`).
   */
  readonly signal: AbortSignal;
  /** True when running on the embedded in-memory API server. */
  readonly demo: boolean;
  /**
   * Call when the app has stopped: in demo mode it waits for the scenario, stops the
   * embedded server and sets exit status 1 if the scenario failed. Nothing otherwise.
   */
  close(): Promise<void>;
}

/** Where a configuration came from, in words. */
function describeSource(source: ConfigSource, flags: ClusterFlags): string {
  if (source === 'home') return '~/.kube/config';
  if (source === 'in-cluster') return 'the in-cluster service account';
  if (source !== 'flags') return source;
  const named = [
    flags.kubeconfig !== undefined ? `--kubeconfig ${flags.kubeconfig}` : undefined,
    flags.master !== undefined ? `--master ${flags.master}` : undefined,
  ];
  return named.filter((text) => text !== undefined).join(' and ');
}

/**
 * Finds the cluster the way the seeds' programs do (`--kubeconfig` and `--master` as
 * `clientcmd.BuildConfigFromFlags`, else `KUBECONFIG`, `~/.kube/config`, in-cluster). When
 * there is none (or with `--demo`) it says so, starts the embedded in-memory API server in
 * this process, runs `scenario.setup`, and plays `scenario.run` alongside the app. A
 * configuration that exists but cannot be loaded is fatal, as `klog.Fatal(err)` in the seeds.
 */
export async function connect(flags: ClusterFlags, scenario: DemoScenario = {}): Promise<Cluster> {
  const signal = stopSignal();
  if (!flags.demo) {
    const source = findConfigSource(flags);
    if (source !== undefined) {
      let config: Config;
      try {
        config = loadConfig({ kubeconfig: flags.kubeconfig, master: flags.master });
      } catch (err) {
        klog.fatalDepth(1, errorMessage(err)); // attributed to the caller of connect()
      }
      config.logger = restLogger();
      // client-go says where its configuration came from only when asked (-v)
      klog
        .V(4)
        .infoDepth(
          1,
          `using the cluster configuration from ${describeSource(source, flags)}: server ${config.host}`,
        );
      return { config, signal, demo: false, close: async () => {} };
    }
    klog.infoDepth(
      1,
      'no cluster configuration found; running on the embedded in-memory API server',
    );
  } else {
    klog.infoDepth(1, '--demo: running on the embedded in-memory API server');
  }
  return startDemo(scenario, signal);
}

/**
 * Copies everything written to stdout and stderr into `log` (the writes still go out);
 * returns the function that undoes it.
 */
function tapOutput(log: LineLog): () => void {
  // Node's console writes through `process.stdout.write`, Bun's and Deno's straight to the
  // file descriptor: a console bound to the two streams makes `console.log` pass the tap on
  // every runtime (on Node it is the console it replaces).
  const globalConsole = globalThis.console;
  globalThis.console = new Console({ stdout: process.stdout, stderr: process.stderr });
  const undo: (() => void)[] = [
    () => {
      globalThis.console = globalConsole;
    },
  ];
  for (const [name, stream] of [
    ['stdout', process.stdout],
    ['stderr', process.stderr],
  ] as const) {
    const original = stream.write;
    const decoder = new TextDecoder();
    stream.write = function (this: typeof stream, chunk: unknown, ...rest: unknown[]): boolean {
      log.write(
        name,
        typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true }),
      );
      return Reflect.apply(original, this, [chunk, ...rest]) as boolean;
    } as typeof stream.write;
    undo.push(() => {
      stream.write = original;
    });
  }
  return () => {
    for (const fn of undo) fn();
  };
}

async function startDemo(scenario: DemoScenario, stop: AbortSignal): Promise<Cluster> {
  const output = new LineLog();
  const untap = tapOutput(output);
  // Loaded only here, so that running against a real cluster does not load the server.
  const { startApiServer } = await import('@kubets/apiserver');
  const server = await startApiServer();
  klog.info(`embedded API server at ${server.host}; kubeconfig ${server.kubeconfigPath}`);
  const config = loadConfig({ kubeconfig: server.kubeconfigPath });
  config.logger = restLogger();

  // The app's stop signal: SIGINT/SIGTERM, or the end of the scenario.
  const appStop = new AbortController();
  // The scenario's: SIGINT/SIGTERM, or the app stopping (close()) before the scenario ended.
  const scenarioStop = new AbortController();
  const onSignal = (): void => {
    appStop.abort(stop.reason);
    scenarioStop.abort(stop.reason);
  };
  if (stop.aborted) onSignal();
  else stop.addEventListener('abort', onSignal, { once: true });

  const demo: Demo = {
    server,
    config,
    clientset: new Clientset(config),
    output,
    signal: scenarioStop.signal,
    step: (message) => klog.infoDepth(1, `demo: ${message}`),
    waitFor: (pattern, since) =>
      output.waitFor(pattern, {
        since: since ?? 0,
        signal: scenarioStop.signal,
        timeoutMs: 60_000,
      }),
  };

  let failure: unknown;
  const fail = (err: unknown): void => {
    if (stop.aborted) return; // interrupted, not failed
    failure = err;
    klog.error(`demo scenario failed: ${errorMessage(err)}`);
  };
  try {
    await scenario.setup?.(demo);
  } catch (err) {
    fail(err);
    appStop.abort();
  }
  const run = scenario.run;
  const played =
    run === undefined || failure !== undefined
      ? Promise.resolve()
      : (async () => {
          await new Promise((resolve) => setImmediate(resolve)); // let the app start first
          try {
            await run(demo);
            demo.step('scenario complete; stopping as on SIGTERM');
          } catch (err) {
            fail(err);
          }
          appStop.abort();
        })();

  return {
    config,
    signal: appStop.signal,
    demo: true,
    close: async () => {
      scenarioStop.abort(new Error('the app stopped'));
      await played;
      stop.removeEventListener('abort', onSignal);
      await server.stop();
      untap();
      output.close('the demo ended');
      if (failure !== undefined) process.exitCode = 1;
    },
  };
}
