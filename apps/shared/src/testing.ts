/**
 * Test helpers for the example apps: run an app as a child process (`node src/main.ts ...`,
 * exactly as a user would) and wait for the lines it prints; run `kubectl`.
 *
 * @module
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stackKeepsEveryCaller } from '@kubets/apimachinery';
import { type Envtest, startEnvtest } from '@kubets/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineLog, type LinePattern, type WaitForOptions } from './lines.ts';
import { demoDeployment } from './objects.ts';

/** An app running as a child process. */
export interface AppProcess {
  readonly pid: number | undefined;
  /** Its stdout and stderr lines, in the order it wrote them. */
  readonly output: LineLog;
  /** Waits for a matching line (see {@link LineLog.waitFor}); rejects if the app exits first. */
  waitFor(pattern: LinePattern, options?: WaitForOptions): Promise<string>;
  /** Resolves with the exit code once the process has exited (`null` if a signal killed it). */
  readonly exited: Promise<number | null>;
  /** Sends `signal` (SIGTERM by default) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Options of {@link startApp}. */
export interface StartAppOptions {
  /** The child's environment; default this process's. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts `node src/main.ts <args>` in `appDir` (a path or a `file:` URL of the app's
 * directory). Its stdout and stderr go through one pipe into one {@link LineLog}, so lines
 * keep the order the app wrote them in.
 */
export function startApp(
  appDir: string | URL,
  args: readonly string[],
  options: StartAppOptions = {},
): AppProcess {
  const cwd = typeof appDir === 'string' ? appDir : fileURLToPath(appDir);
  // stderr joins stdout in ONE pipe (`2>&1`, as in a terminal): with two pipes the parent
  // could read a later stdout line before an earlier stderr (klog) line. `exec` makes the
  // shell become node (or the runtime the tests run on), so signals reach the app itself.
  // The runtime's path goes in the environment, not among the arguments: Deno rewrites the
  // arguments of a spawn that names its own binary as if they were Node's (`--v8-flags=...`).
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      `exec "$KUBETS_APP_RUNTIME" ${appRuntimeArgs.join(' ')} src/main.ts "$@" 2>&1`,
      'sh',
      ...args,
    ],
    {
      cwd,
      env: { ...(options.env ?? process.env), KUBETS_APP_RUNTIME: process.execPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  const output = new LineLog();
  child.stdout?.setEncoding('utf8').on('data', (text: string) => output.write('stdout', text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => output.write('stderr', text));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      running.delete(child);
      output.close(`the app exited (code ${code}, signal ${signal})`);
      resolve(code);
    });
  });
  return {
    pid: child.pid,
    output,
    waitFor: (pattern, waitOptions) => output.waitFor(pattern, waitOptions),
    exited,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * What goes between the runtime and `src/main.ts` to run an app on the runtime the tests run
 * on (`process.execPath`): nothing for Node and Bun, which run a TypeScript file as it is;
 * `run --allow-all` for Deno (every permission, as Node has).
 */
export const appRuntimeArgs: readonly string[] = (
  process.versions as Record<string, string | undefined>
).deno
  ? ['run', '--allow-all']
  : [];

/**
 * An environment in which no cluster configuration can be found: this process's
 * environment without `KUBECONFIG` and `KUBERNETES_SERVICE_*`, with `HOME` an empty temporary
 * directory (so no `~/.kube/config`). `cleanup()` removes the directory.
 */
export function noClusterEnv(): { env: NodeJS.ProcessEnv; cleanup(): void } {
  const home = mkdtempSync(join(tmpdir(), 'kubets-app-home-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env.KUBECONFIG;
  delete env.KUBERNETES_SERVICE_HOST;
  delete env.KUBERNETES_SERVICE_PORT;
  return { env, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/**
 * Runs `kubectl --kubeconfig <kubeconfig> <args>` (`$KUBECTL` or `kubectl` on `PATH`), with
 * `stdin` as its input (for `apply -f -`). Resolves with stdout; rejects with stderr in the
 * message when it fails.
 */
export function kubectl(
  kubeconfig: string,
  args: readonly string[],
  stdin?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.env.KUBECTL ?? 'kubectl',
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr || err.message}`));
        else resolve(stdout);
      },
    );
    child.stdin?.end(stdin ?? '');
  });
}

/**
 * A klog line of `file` with message `message` (a regular expression source). On Bun, where
 * the apps leave the caller out (`stackKeepsEveryCaller` in `@kubets/apimachinery`), the
 * caller is `???:1` instead of `file:line`.
 */
export function klogLine(file: string, message: string, severity = 'I'): RegExp {
  const caller = stackKeepsEveryCaller() ? `${escapeRegExp(file)}:\\d+` : '\\?\\?\\?:1';
  return new RegExp(
    `^${severity}\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +\\d+ ${caller}\\] ${message}$`,
  );
}

/**
 * A loopback port nothing listens on: bound, read and closed again, so a connection to it is
 * refused at once (an unreachable API server without waiting for a network timeout).
 */
export async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A klog line that a kubets library printed through `klogLogger(source)`. */
export function libraryLogLine(source: string, message: string, severity = 'W'): RegExp {
  const escapedSource = escapeRegExp(source);
  return new RegExp(
    `^${severity}\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +\\d+ ${escapedSource}\\] ${message}$`,
  );
}

/**
 * Runs a long-running app against a server that refuses connections and checks (throwing
 * when not) what a user must see: within 20 s the informer's failed list (`failedList`; a
 * refused connection is not retried inside the request, as in client-go, so the list fails at
 * once), the app still running, and afterwards a new list that fails again (the reflector's
 * backoff, not a tight loop). Stops the app at the end.
 */
export async function expectRetriesAgainstUnreachableServer(
  appDir: string | URL,
  failedList: (server: string) => RegExp,
  args: readonly string[] = [],
): Promise<void> {
  const port = await closedLoopbackPort();
  const server = `https://127.0.0.1:${port}`;
  const { env, cleanup } = noClusterEnv();
  const app = startApp(appDir, [`--master=${server}`, ...args], { env });
  let exitCode: number | null | undefined;
  void app.exited.then((code) => {
    exitCode = code;
  });
  try {
    const failed = await app.waitFor(failedList(server), { timeoutMs: 20_000 });
    const stillRunning = (when: string): void => {
      if (exitCode !== undefined) {
        throw new Error(
          `the app exited ${when} (code ${exitCode}):\n${app.output.lines.join('\n')}`,
        );
      }
    };
    stillRunning('after the failed list');
    // It keeps trying: a new list after the failure, which fails again.
    await app.waitFor(failedList(server), {
      since: app.output.lines.indexOf(failed) + 1,
      timeoutMs: 60_000,
    });
    stillRunning('after the next attempt');
    if (app.output.count(/^\s+at /) > 0) {
      throw new Error(`the app printed a stack trace:\n${app.output.lines.join('\n')}`);
    }
  } finally {
    await app.stop('SIGKILL');
    cleanup();
  }
}

/**
 * A kubeconfig file naming `server` (no credentials: enough for a server that refuses
 * connections, or for one whose address `--master` replaces). `cleanup()` removes it.
 */
export function writeKubeconfig(server: string): { path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'kubets-kubeconfig-'));
  const path = join(dir, 'kubeconfig');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: test',
      '  cluster:',
      `    server: ${server}`,
      'contexts:',
      '- name: test',
      '  context:',
      '    cluster: test',
      '    user: test',
      'users:',
      '- name: test',
      '  user: {}',
      'current-context: test',
      '',
    ].join('\n'),
  );
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What a command line refused by the flag parser prints (see `parseFlags`). */
export const flagErrorLine =
  /flag provided but not defined|bad flag syntax|flag needs an argument|invalid (boolean )?value|unexpected argument|^Usage:/;

/** Options of {@link runCommandLine}. */
export interface RunCommandLineOptions {
  /**
   * The line to wait for before the app is stopped (SIGKILL); without it, the app runs until
   * it exits by itself.
   */
  readonly until?: LinePattern;
  /** The child's environment; default {@link noClusterEnv}'s. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Runs `node src/main.ts <args>` until `options.until` shows (then kills it) or until it
 * exits, and returns what it printed and its exit code (`undefined` when it was killed).
 */
export async function runCommandLine(
  appDir: string | URL,
  args: readonly string[],
  options: RunCommandLineOptions = {},
): Promise<{ output: LineLog; code: number | null | undefined }> {
  const { env, cleanup } = noClusterEnv();
  const app = startApp(appDir, args, { env: options.env ?? env });
  try {
    if (options.until === undefined) return { output: app.output, code: await app.exited };
    await app.waitFor(options.until, { timeoutMs: 30_000 });
    return { output: app.output, code: undefined };
  } finally {
    await app.stop('SIGKILL');
    cleanup();
  }
}

/** `text` as a regular expression source matching it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What {@link describeSeedCommandLine} needs to know about one long-running app. */
export interface SeedCommandLine {
  /** The program name, as its flag errors start. */
  readonly app: string;
  /** The app's directory (where `src/main.ts` is). */
  readonly appDir: URL;
  /** The seed's command line, apart from the program name, for a kubeconfig and server. */
  readonly seedArgs: (kubeconfigPath: string, server: string) => string[];
}

/** connect()'s V(4) line: where the configuration came from. */
export function configFromLine(server: string): RegExp {
  return klogLine(
    'main.ts',
    `using the cluster configuration from .*: server ${escapeRegExp(server)}.*`,
  );
}

/** klogLogger's debug report of an informer's reflector starting: a V(4) line. */
export const startingReflectorLine = libraryLogLine('@kubets/cache', 'Starting reflector .*', 'I');

/**
 * The command-line tests every long-running app shares, against a server that refuses
 * connections: the seed's command line and klog's flags are accepted, `-v=4` shows the
 * reflector's and connect()'s debug lines that `-v=0` does not, and an unknown flag is
 * refused as Go's flag package does (the flag named, the usage, exit status 2).
 */
export function describeSeedCommandLine({ app, appDir, seedArgs }: SeedCommandLine): void {
  /**
   * The reflector's first list, refused (printed at every -v): a streaming list
   * (`sendInitialEvents=true`, the default) or a paged one at `resourceVersion=0`; the
   * cache's warning, or the app's own klog error where it reports list failures itself.
   */
  const listRefused =
    /(List\/watch failed|Failed to list) .*[?&](resourceVersion=0|sendInitialEvents=true).*ECONNREFUSED/;

  describe(`${app} command line`, () => {
    it("accepts the seed's command line and klog's flags; -v=4 shows debug lines that -v=0 does not", async () => {
      const server = `https://127.0.0.1:${await closedLoopbackPort()}`;
      const kubeconfig = writeKubeconfig(server);
      try {
        const seed = seedArgs(kubeconfig.path, server);

        const verbose = await runCommandLine(appDir, [...seed, '-v=4'], {
          until: startingReflectorLine,
        });
        expect(verbose.output.count(flagErrorLine), verbose.output.lines.join('\n')).toBe(0);
        expect(verbose.output.count(configFromLine(server))).toBe(1);

        const quiet = await runCommandLine(appDir, seed, { until: listRefused });
        expect(quiet.output.count(flagErrorLine), quiet.output.lines.join('\n')).toBe(0);
        expect(quiet.output.count(startingReflectorLine)).toBe(0);
        expect(quiet.output.count(/using the cluster configuration/)).toBe(0);

        // klog's other flags, one dash or two, in Go's forms
        const klogFlags = [
          '--v',
          '0',
          '-logtostderr',
          '--alsologtostderr=false',
          '-stderrthreshold',
          'INFO',
        ];
        const more = await runCommandLine(appDir, [...seed, ...klogFlags], { until: listRefused });
        expect(more.output.count(flagErrorLine), more.output.lines.join('\n')).toBe(0);
      } finally {
        kubeconfig.cleanup();
      }
    }, 120_000);

    itRefusesAnUnknownFlag(app, appDir);
  });
}

/** What {@link describeSeedCommandLineE2E} needs to know about one app. */
export interface SeedCommandLineE2E {
  /** The program name. */
  readonly app: string;
  /** The app's directory (where `src/main.ts` is). */
  readonly appDir: URL;
  /**
   * The seed's command line, apart from the program name. `kubeconfigPath` is a copy of
   * envtest's kubeconfig at `$HOME/.kube/config` (client-go's default, for a seed that runs
   * with no flags); `server` is envtest's kube-apiserver.
   */
  readonly seedArgs: (kubeconfigPath: string, server: string) => string[];
  /** True for an app that runs until stopped (SIGTERM); false for one that ends by itself. */
  readonly longRunning: boolean;
  /**
   * Makes the app do its job (with kubectl) and waits for the evidence in its output. `name`
   * is unique to the run, for the objects it creates.
   */
  readonly job: (run: JobRun) => Promise<void>;
  /** Creates what the app must find when it starts (with kubectl); `name` as in `job`. */
  readonly before?: (run: Omit<JobRun, 'app'>) => Promise<unknown>;
}

/** One run of an app in {@link describeSeedCommandLineE2E}. */
export interface JobRun {
  readonly app: AppProcess;
  readonly kubeconfigPath: string;
  readonly name: string;
}

/**
 * Runs an app with its seed's command line, verbatim apart from the program name, against
 * envtest's real kube-apiserver, once at klog's default verbosity and once with `-v=4`:
 * each run accepts the flags, does the app's job, shows connect()'s V(4) line (and for an
 * informer app the reflector's) only with `-v=4`, and ends with status 0 — by itself, or on
 * SIGTERM for a long-running app. The kubeconfig is a temporary `$HOME/.kube/config`, and the
 * environment names no other cluster.
 */
export function describeSeedCommandLineE2E(spec: SeedCommandLineE2E): void {
  const { app, appDir, seedArgs, longRunning, job, before } = spec;
  describe(`${app} with its seed's command line against a real kube-apiserver`, () => {
    let env: Envtest | undefined;
    let home: { env: NodeJS.ProcessEnv; cleanup(): void } | undefined;
    let kubeconfigPath = '';
    let running: AppProcess | undefined;

    beforeAll(async () => {
      env = await startEnvtest();
      home = noClusterEnv();
      const kubeDir = join(home.env.HOME ?? '', '.kube');
      mkdirSync(kubeDir);
      kubeconfigPath = join(kubeDir, 'config');
      copyFileSync(env.kubeconfigPath, kubeconfigPath);
    });

    afterAll(async () => {
      await running?.stop('SIGKILL');
      home?.cleanup();
      await env?.stop();
    });

    it.each([
      ['the default verbosity', [] as string[], false],
      ['-v=4', ['-v=4'], true],
    ])(
      '%s: accepted, does its job, stops cleanly',
      async (_level, verbosity, verbose) => {
        const server = env!.host;
        const name = `seed-${verbose ? 'v4' : 'v0'}`;
        await before?.({ kubeconfigPath, name });
        const args = [...seedArgs(kubeconfigPath, server), ...verbosity];
        const started = startApp(appDir, args, { env: home!.env });
        running = started;
        const out = started.output;
        try {
          await job({ app: started, kubeconfigPath, name });
          const code = longRunning ? await started.stop('SIGTERM') : await started.exited;
          expect(code, out.lines.join('\n')).toBe(0);
        } finally {
          await started.stop('SIGKILL');
        }
        expect(out.count(flagErrorLine), out.lines.join('\n')).toBe(0);
        expect(out.count(/no cluster configuration found|embedded in-memory API server/)).toBe(0);
        // Printed before anything the job waited for, so their absence at -v=0 is final.
        expect(out.count(configFromLine(server)), out.lines.join('\n')).toBe(verbose ? 1 : 0);
        if (longRunning) {
          expect(out.count(startingReflectorLine) > 0, out.lines.join('\n')).toBe(verbose);
        }
        expect(out.count(/^\s+at /), out.lines.join('\n')).toBe(0);
      },
      180_000,
    );
  });
}

/**
 * The job of the two Deployment watchers of seed 001 (typed and dynamic informer): a
 * Deployment made before the start is added and listed by the lister of "default"; one made
 * afterwards is added.
 */
export const watchDeploymentsJob: Pick<SeedCommandLineE2E, 'before' | 'job'> = {
  before: async ({ kubeconfigPath, name }) => {
    await applyDeployment(kubeconfigPath, `${name}-before`);
  },
  job: async ({ app, kubeconfigPath, name }) => {
    await app.waitFor(new RegExp(`^add a deployment: ${name}-before$`));
    await app.waitFor(new RegExp(`^\\d+ -> ${name}-before$`));
    const since = app.output.mark();
    await applyDeployment(kubeconfigPath, `${name}-after`);
    await app.waitFor(new RegExp(`^add a deployment: ${name}-after$`), { since });
  },
};

function applyDeployment(kubeconfigPath: string, name: string): Promise<string> {
  return kubectl(
    kubeconfigPath,
    ['apply', '-f', '-'],
    JSON.stringify(demoDeployment(name, 'nginx:1.25')),
  );
}

/**
 * The test every app shares: an unknown flag is refused as Go's flag package does (the flag
 * named, the usage, exit status 2).
 */
export function itRefusesAnUnknownFlag(app: string, appDir: string | URL): void {
  it('refuses an unknown flag as Go does: the flag named, the usage, exit code 2', async () => {
    const bad = await runCommandLine(appDir, ['-kubeconfig=/nonexistent', '-a']);
    expect(bad.code).toBe(2);
    expect(bad.output.lines[0]).toBe(`${app}: flag provided but not defined: -a`);
    expect(bad.output.count(/^ {2}--v <value> +number for the log level verbosity/)).toBe(1);
  }, 60_000);
}
