// The client-go variant's runner binary (client-go/main.go): built on demand with the Go
// toolchain against the client-go that Debian's kubernetes source vendors (the source
// scripts/provision-envtest.sh unpacks to build kube-apiserver), offline and cached under the
// same build directory. When Go or the source is missing the variant is skipped with the
// reason, never failing the benchmark.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Go runner's source, in apps/bench/client-go. */
export const clientGoSource = fileURLToPath(new URL('../client-go/main.go', import.meta.url));

/** Where the provisioning builds kube-apiserver: `$KUBETS_BUILD_DIR` or `~/.cache/kubets/build`. */
export function buildRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.KUBETS_BUILD_DIR ?? path.join(env.HOME ?? os.homedir(), '.cache/kubets/build');
}

/** The unpacked kubernetes source under `<root>/src` that vendors client-go, if any. */
export function findKubernetesSource(root: string): string | undefined {
  const srcDir = path.join(root, 'src');
  let entries: string[];
  try {
    entries = readdirSync(srcDir).sort();
  } catch {
    return undefined;
  }
  for (const name of entries) {
    if (!name.startsWith('kubernetes-')) continue;
    const candidate = path.join(srcDir, name);
    if (existsSync(path.join(candidate, 'vendor/k8s.io/client-go/tools/cache'))) return candidate;
  }
  return undefined;
}

/** What a build depends on: a different runner source, toolchain or kubernetes tree rebuilds. */
export function buildKey(source: string, goVersion: string, kubernetesSource: string): string {
  return createHash('sha256')
    .update(source)
    .update('\0')
    .update(goVersion)
    .update('\0')
    .update(kubernetesSource)
    .digest('hex');
}

function run(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, maxBuffer: 16 * 2 ** 20 }, (err, stdout, stderr) => {
      resolve({ ok: err === null, output: `${stdout}${stderr}`.trim() || String(err ?? '') });
    });
  });
}

/** The first Go toolchain that answers `go version`, with that answer. */
async function findGo(
  candidates: readonly string[],
): Promise<{ go: string; version: string } | undefined> {
  for (const go of candidates) {
    const { ok, output } = await run(go, ['version']);
    if (ok) return { go, version: output };
  }
  return undefined;
}

/** The runner binary, or why the client-go variant cannot run here. */
export type ClientGoRunner = { binary: string } | { skipped: string };

/** How {@link prepareClientGo} looks for its tools (defaults: this machine). */
export interface PrepareClientGoOptions {
  /** Go toolchains to try, in order (default `go` on PATH, then `/usr/bin/go`). */
  goCandidates?: readonly string[] | undefined;
  /** The build directory (default {@link buildRoot}). */
  root?: string | undefined;
  /** Progress lines. */
  log?: ((message: string) => void) | undefined;
}

/**
 * Builds the client-go runner into `<root>/bench-client-go` unless the build there is for
 * the same source, toolchain and kubernetes tree, and returns its path; or the reason it
 * cannot (no Go, no source, a failed build).
 */
export async function prepareClientGo(
  options: PrepareClientGoOptions = {},
): Promise<ClientGoRunner> {
  const root = options.root ?? buildRoot();
  const log = options.log ?? (() => undefined);
  const toolchain = await findGo(options.goCandidates ?? ['go', '/usr/bin/go']);
  if (toolchain === undefined) return { skipped: 'no Go toolchain (go version failed)' };
  const kubernetes = findKubernetesSource(root);
  if (kubernetes === undefined) {
    return {
      skipped: `no kubernetes source vendoring client-go under ${path.join(root, 'src')} (scripts/provision-envtest.sh unpacks it)`,
    };
  }
  const source = readFileSync(clientGoSource, 'utf8');
  const key = buildKey(source, toolchain.version, kubernetes);
  const dir = path.join(root, 'bench-client-go');
  const binary = path.join(dir, 'bench-client-go');
  const keyFile = path.join(dir, 'build-key');
  if (existsSync(binary) && existsSync(keyFile) && readFileSync(keyFile, 'utf8') === key) {
    return { binary };
  }

  // A GOPATH-mode package whose vendor directory is the kubernetes tree's, built with the
  // environment debian/rules gives kube-apiserver's build: offline, private GOPATH and HOME.
  const pkg = path.join(dir, 'gopath/src/kubetsbench');
  mkdirSync(pkg, { recursive: true });
  mkdirSync(path.join(dir, 'home'), { recursive: true });
  writeFileSync(path.join(pkg, 'main.go'), source);
  rmSync(path.join(pkg, 'vendor'), { force: true, recursive: false });
  symlinkSync(path.join(kubernetes, 'vendor'), path.join(pkg, 'vendor'));
  log(`building the client-go runner with ${toolchain.version} (once; cached in ${dir})`);
  const t0 = performance.now();
  const built = await run(toolchain.go, ['build', '-o', `${binary}.tmp`, '.'], {
    cwd: pkg,
    env: {
      ...process.env,
      HOME: path.join(dir, 'home'),
      GOPATH: path.join(dir, 'gopath'),
      GOCACHE: path.join(dir, 'gocache'),
      GO111MODULE: 'off',
      GOFLAGS: '',
      GOPROXY: 'off',
    },
  });
  if (!built.ok) {
    return {
      skipped: `the client-go runner did not build: ${built.output.split('\n').slice(-5).join(' / ')}`,
    };
  }
  renameSync(`${binary}.tmp`, binary);
  writeFileSync(keyFile, key);
  log(`built the client-go runner in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return { binary };
}

/** Runs the binary's `-probe`: client-go linked and initialised. */
export async function probeClientGo(binary: string): Promise<{ probe: string; go: string }> {
  const { ok, output } = await run(binary, ['-probe']);
  if (!ok) throw new Error(`${binary} -probe failed: ${output}`);
  return JSON.parse(output) as { probe: string; go: string };
}
