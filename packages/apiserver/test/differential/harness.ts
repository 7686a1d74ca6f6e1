import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { type ContractEndpoint, type RawResponse, rawRequest } from '../contract-client.js';

/** The areas of issue 34 a step belongs to. */
export const AREAS = [
  'writes',
  'apply',
  'subresources',
  'reads',
  'patches',
  'custom resources',
  'kubectl',
] as const;

/** One of {@link AREAS}. */
export type Area = (typeof AREAS)[number];

/** What each step may read of the answers before it (by step id) on the same server. */
export type Earlier = Map<string, StepResult>;

/** An HTTP request step. */
export interface HttpStep {
  area: Area;
  /** Unique; later steps find this step's answer under it. */
  id: string;
  method: string;
  path: string;
  /** An object (sent as JSON unless `contentType` says otherwise), a string or a Buffer. */
  body?: unknown | ((earlier: Earlier) => unknown);
  contentType?: string;
  headers?: Record<string, string>;
  /**
   * What of the answer is compared (default: status, content type and the normalised body).
   * Steps whose whole answer is long (discovery, OpenAPI) pick the part that matters.
   */
  pick?: (res: RawResponse) => unknown;
  /**
   * Why the in-memory server answers this step as a newer kube-apiserver does on purpose (1.20's
   * answer is a bug later releases fixed, or a feature newer clients use): such a step is
   * reported but not counted.
   */
  newer?: string;
  /** Repeats the request (up to 30 s) until this accepts the answer: waits for a CRD to serve. */
  until?: (res: RawResponse) => boolean;
}

/** A kubectl step: argv after `--kubeconfig … --cache-dir …`. */
export interface KubectlStep {
  area: Area;
  id: string;
  kubectl: '1.20' | '1.34';
  args: string[];
  stdin?: string;
  /** As {@link HttpStep.newer}. */
  newer?: string;
  /** Which of the outputs are compared (default both). */
  compare?: 'stdout' | 'both';
}

/** A step of the table. */
export type Step = HttpStep | KubectlStep;

/** What one step answered, before normalisation. */
export interface StepResult {
  status: number;
  contentType: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely.
  json: any;
  text: string;
}

/** A server the steps run against. */
export interface DiffTarget extends ContractEndpoint {
  kubeconfigPath: string;
  /** Where kubectl keeps its discovery cache for this target. */
  cacheDir: string;
}

/** Where the kubectl binaries are. */
export interface KubectlBinaries {
  '1.20': string;
  '1.34': string;
}

function runKubectl(
  binary: string,
  target: DiffTarget,
  args: string[],
  stdin: string | undefined,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      binary,
      ['--kubeconfig', target.kubeconfigPath, '--cache-dir', target.cacheDir, ...args],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(stdin ?? '');
  });
}

/** Runs the table in order against one server; each step's answer under its id. */
export async function runSteps(
  steps: readonly Step[],
  target: DiffTarget,
  kubectl: KubectlBinaries,
): Promise<Map<string, unknown>> {
  const earlier: Earlier = new Map();
  const compared = new Map<string, unknown>();
  for (const step of steps) {
    if ('kubectl' in step) {
      const out = await runKubectl(kubectl[step.kubectl], target, step.args, step.stdin);
      const result = {
        status: out.code,
        contentType: undefined,
        json: undefined,
        text: out.stdout,
      };
      earlier.set(step.id, result);
      compared.set(step.id, {
        exit: out.code,
        stdout: normaliseText(out.stdout, target),
        ...(step.compare === 'stdout' ? {} : { stderr: normaliseText(out.stderr, target) }),
      });
      continue;
    }
    const body = typeof step.body === 'function' ? step.body(earlier) : step.body;
    const send = (): Promise<RawResponse> =>
      rawRequest(target, step.method, step.path, {
        ...(body === undefined ? {} : { body }),
        ...(step.contentType ? { contentType: step.contentType } : {}),
        ...(step.headers ? { headers: step.headers } : {}),
      });
    let res = await send();
    for (const deadline = Date.now() + 30_000; step.until && !step.until(res); ) {
      if (Date.now() > deadline) break;
      await sleep(250);
      res = await send();
    }
    const contentType = res.headers['content-type'];
    earlier.set(step.id, { status: res.status, contentType, json: res.json, text: res.text });
    const shown = step.pick
      ? step.pick(res)
      : {
          status: res.status,
          contentType,
          body: res.json === undefined ? textOrBinary(res.text, contentType) : res.json,
        };
    compared.set(step.id, normalise(shown, target));
  }
  return compared;
}

function textOrBinary(text: string, contentType: string | undefined): string {
  return contentType?.includes('protobuf') ? `<${Buffer.byteLength(text)} bytes>` : text;
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;
/** A name from a `generateName` (kube-apiserver's five characters of its alphabet). */
const GENERATED = /\b(gen-|g{20,})[bcdfghjklmnpqrstvwxz2456789]{5}\b/g;
const CLUSTER_IP = /\b10\.0\.0\.\d{1,3}\b/g;

/** Replaces what legitimately differs between two servers in a string. */
export function normaliseText(text: string, target: DiffTarget): string {
  return text
    .replaceAll(target.host, '<host>')
    .replace(/127\.0\.0\.1:\d+/g, '<host>')
    .replace(/\/tmp\/(LIVE|MERGED)-\d+/g, '/tmp/$1-<n>')
    .replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+ [+-]\d{4}/g, '<time>')
    .replace(/[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}/g, '<time>')
    .replace(/^[EWI]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ /gm, '<klog> ')
    .replace(/(Resource Version:\s+)\d+/g, '$1<rv>')
    .replace(/(ResourceVersion in record )\(\d+\)/g, '$1(<rv>)')
    .replace(GENERATED, '$1<generated>')
    .replace(UUID, '<uid>')
    .replace(TIME, '<time>')
    .replace(CLUSTER_IP, '<ip>')
    .replace(/resourceVersion: "\d+"/g, 'resourceVersion: "<rv>"')
    .replace(/"resourceVersion": "\d+"/g, '"resourceVersion": "<rv>"')
    .replace(/\b\d+(s|m\d*s?|h\d*m?)\b(?=\s|$)/g, '<age>')
    .replace(/\b(\d+)\/TCP/g, (m, port) => (Number(port) >= 30000 ? '<port>/TCP' : m));
}

/**
 * Replaces uids, timestamps, resourceVersions, continue tokens, allocated IPs and ports, and
 * names made from a `generateName`, keeping key order.
 */
export function normalise(value: unknown, target: DiffTarget): unknown {
  if (typeof value === 'string') return normaliseText(value, target);
  if (Array.isArray(value)) return value.map((item) => normalise(item, target));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) {
    if (key === 'resourceVersion' && typeof item === 'string' && /^\d+$/.test(item)) {
      out[key] = '<rv>';
    } else if (key === 'continue' && typeof item === 'string' && item !== '') {
      out[key] = '<continue>';
    } else if (key === 'name' && typeof record.generateName === 'string') {
      out[key] = `${record.generateName}<generated>`;
    } else if (key === 'nodePort' && typeof item === 'number') {
      out[key] = '<port>';
    } else if (key === 'selfLink' || key === 'audit-id') {
      out[key] = '<dropped>';
    } else {
      out[key] = normalise(item, target);
    }
  }
  return out;
}

/** One step that answered differently. */
export interface Difference {
  area: Area;
  id: string;
  /** JSON paths where the answers differ, with both values (kube-apiserver first). */
  paths: string[];
  /** Set when the difference is deliberate: the newer behaviour the server follows. */
  newer?: string;
}

function describeValue(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'absent' : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Where `real` and `ours` differ, as `path: real ≠ ours` lines (at most `max`). */
export function differingPaths(real: unknown, ours: unknown, path = '$', max = 8): string[] {
  if (isDeepStrictEqual(real, ours)) {
    const a = JSON.stringify(real);
    const b = JSON.stringify(ours);
    return a === b ? [] : [`${path}: key order: ${describeValue(real)} ≠ ${describeValue(ours)}`];
  }
  const bothObjects =
    real !== null &&
    ours !== null &&
    typeof real === 'object' &&
    typeof ours === 'object' &&
    Array.isArray(real) === Array.isArray(ours);
  if (
    !bothObjects ||
    (Array.isArray(real) && (real as unknown[]).length !== (ours as unknown[]).length)
  ) {
    return [`${path}: ${describeValue(real)} ≠ ${describeValue(ours)}`];
  }
  const out: string[] = [];
  const a = real as Record<string, unknown>;
  const b = ours as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (out.length >= max) break;
    out.push(...differingPaths(a[key], b[key], `${path}.${key}`, max - out.length));
  }
  return out;
}

/** Compares the answers of both servers step by step. */
export function compare(
  steps: readonly Step[],
  real: Map<string, unknown>,
  ours: Map<string, unknown>,
): { counts: Record<Area, { same: number; different: number }>; differences: Difference[] } {
  const counts = Object.fromEntries(AREAS.map((a) => [a, { same: 0, different: 0 }])) as Record<
    Area,
    { same: number; different: number }
  >;
  const differences: Difference[] = [];
  for (const step of steps) {
    const paths = differingPaths(real.get(step.id), ours.get(step.id));
    if (paths.length === 0) counts[step.area].same++;
    else if (step.newer !== undefined) {
      differences.push({ area: step.area, id: step.id, paths, newer: step.newer });
    } else {
      counts[step.area].different++;
      differences.push({ area: step.area, id: step.id, paths });
    }
  }
  return { counts, differences };
}

/** The report: counts per area, then every difference. */
export function renderReport(result: ReturnType<typeof compare>): string {
  const lines = ['area                 same  different'];
  let same = 0;
  let different = 0;
  for (const area of AREAS) {
    const c = result.counts[area];
    same += c.same;
    different += c.different;
    lines.push(
      `${area.padEnd(20)} ${String(c.same).padStart(5)} ${String(c.different).padStart(10)}`,
    );
  }
  lines.push(
    `${'total'.padEnd(20)} ${String(same).padStart(5)} ${String(different).padStart(10)}`,
    '',
  );
  const newer = result.differences.filter((d) => d.newer !== undefined);
  if (newer.length > 0) {
    lines.push(`not counted, answered as newer kube-apiservers do on purpose: ${newer.length}`, '');
  }
  for (const d of result.differences) {
    lines.push(
      `[${d.area}] ${d.id}${d.newer !== undefined ? ` (newer on purpose: ${d.newer})` : ''}`,
    );
    for (const p of d.paths) lines.push(`    ${p}`);
  }
  return lines.join('\n');
}
