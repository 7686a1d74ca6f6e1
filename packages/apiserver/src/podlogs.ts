import type { ServerResponse } from 'node:http';
import type { Entry, EventSink, StoredEvent } from './object-entry.js';
import { isObject, type JsonObject } from './patch.js';
import type { ResourceStore } from './resource-store.js';
import { badRequest, invalid } from './status.js';

/** Which container of a pod a {@link PodLogs} call is about. */
export interface PodLogContainerOptions {
  /**
   * The container's name. Default: the pod's only container in `spec.containers`; the call
   * throws when the pod does not exist (yet) or has more than one container.
   */
  container?: string;
}

/** Options of {@link PodLogs.append} and {@link PodLogs.set}. */
export interface PodLogWriteOptions extends PodLogContainerOptions {
  /**
   * When the lines were written: what `timestamps=true` prints and what `sinceSeconds` /
   * `sinceTime` compare with. Default: now.
   */
  time?: Date;
}

/**
 * The container logs the in-memory API server serves at
 * `GET /api/v1/namespaces/{namespace}/pods/{name}/log`, standing in for the kubelet. Tests
 * write them; a pod's logs are dropped when the pod is deleted.
 *
 * The server answers like a kubelet-backed kube-apiserver: `container` (required when the pod
 * has several; an unknown one is 400 BadRequest), `tailLines`, `limitBytes`, `timestamps`
 * (fixed-width RFC 3339 nanosecond prefix, as the kubelet writes it), `sinceSeconds`,
 * `sinceTime` and `follow=true`, which keeps the response open and streams appended text
 * until the client disconnects, the container {@link PodLogs.end | ends}, the pod is deleted
 * or the server stops. `previous=true` is answered with the kubelet's 400 (no container here
 * ever has a previous instance). A pod without a log reads as empty; nothing depends on
 * `spec.nodeName`.
 *
 * @example
 * ```ts
 * await using server = await startApiServer();
 * // ... create pod "web" with one container ...
 * server.podLogs.append('default', 'web', 'starting\nready\n');
 * // GET .../pods/web/log → "starting\nready\n"; a follow stream gets later appends at once
 * ```
 */
export interface PodLogs {
  /**
   * Appends `text` to a container's log; open `follow` streams get it at once. Each
   * newline-terminated line (and a trailing fragment without one) is one log line for
   * `tailLines` and `timestamps`. Appending to an {@link PodLogs.end | ended} container
   * starts it again.
   */
  append(namespace: string, pod: string, text: string, options?: PodLogWriteOptions): void;
  /**
   * Replaces a container's log with `text`: later requests read only `text`. Open `follow`
   * streams are not rewound; they receive `text` as if it were appended.
   */
  set(namespace: string, pod: string, text: string, options?: PodLogWriteOptions): void;
  /**
   * The container stops: its open `follow` streams end after what they have sent, and new
   * `follow` requests return the log and end. The next {@link PodLogs.append} restarts it.
   */
  end(namespace: string, pod: string, options?: PodLogContainerOptions): void;
  /** A container's log as written (no timestamps), `''` when nothing was written. */
  get(namespace: string, pod: string, options?: PodLogContainerOptions): string;
  /** Forgets every log and ends every open `follow` stream. */
  clear(): void;
}

interface LogRecord {
  readonly time: Date;
  /** The line, with its `\n` unless it is a trailing fragment. */
  readonly text: string;
}

interface ContainerLog {
  records: LogRecord[];
  ended: boolean;
  readonly followers: Set<LogFollower>;
}

/** The parsed and validated query of one pods/log request. */
interface LogQuery {
  container: string | undefined;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines: number | undefined;
  limitBytes: number | undefined;
  /** Lines older than this (ms since the epoch) are left out. */
  since: number | undefined;
}

/** RFC 3339 with nanoseconds, fixed width, as the kubelet prefixes log lines. */
export function logTimestamp(time: Date): string {
  return time.toISOString().replace(/Z$/, '000000Z');
}

function containerNames(pod: JsonObject, field: string): string[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const list = spec[field];
  if (!Array.isArray(list)) return [];
  const names: string[] = [];
  for (const item of list)
    if (isObject(item) && typeof item.name === 'string') names.push(item.name);
  return names;
}

/** kube-apiserver's `validateContainer`: the container a request without one means, or a 400. */
function resolveContainer(pod: JsonObject, name: string, container: string | undefined): string {
  const containers = containerNames(pod, 'containers');
  if (container === undefined || container === '') {
    if (containers.length === 1) return containers[0] as string;
    if (containers.length === 0)
      throw badRequest(`a container name must be specified for pod ${name}`);
    const init = containerNames(pod, 'initContainers');
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    throw badRequest(message);
  }
  const all = [
    ...containers,
    ...containerNames(pod, 'initContainers'),
    ...containerNames(pod, 'ephemeralContainers'),
  ];
  if (!all.includes(container))
    throw badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

function parseBool(query: URLSearchParams, key: string): boolean {
  const value = query.get(key);
  if (value === null || value === '') return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

function parseInteger(query: URLSearchParams, key: string): number | undefined {
  const value = query.get(key);
  if (value === null || value === '') return undefined;
  if (!/^[+-]?\d+$/.test(value))
    throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  return Number(value);
}

/** Parses the PodLogOptions query and validates it as `ValidatePodLogOptions` does (422). */
function parseLogQuery(query: URLSearchParams, pod: string): LogQuery {
  const tailLines = parseInteger(query, 'tailLines');
  const limitBytes = parseInteger(query, 'limitBytes');
  const sinceSeconds = parseInteger(query, 'sinceSeconds');
  const sinceTimeParam = query.get('sinceTime') || undefined;
  let sinceTime: number | undefined;
  if (sinceTimeParam !== undefined) {
    sinceTime = Date.parse(sinceTimeParam);
    if (!/^\d{4}-\d\d-\d\dT/.test(sinceTimeParam) || Number.isNaN(sinceTime)) {
      throw badRequest(
        `parsing time ${JSON.stringify(sinceTimeParam)} as "2006-01-02T15:04:05Z07:00": cannot parse`,
      );
    }
  }
  const causes: { reason: string; message: string; field: string }[] = [];
  if (tailLines !== undefined && tailLines < 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${tailLines}: must be greater than or equal to 0`,
      field: 'tailLines',
    });
  }
  if (limitBytes !== undefined && limitBytes < 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${limitBytes}: must be greater than 0`,
      field: 'limitBytes',
    });
  }
  if (sinceSeconds !== undefined && sinceTime !== undefined) {
    causes.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
      field: '',
    });
  } else if (sinceSeconds !== undefined && sinceSeconds < 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${sinceSeconds}: must be greater than 0`,
      field: 'sinceSeconds',
    });
  }
  if (causes.length > 0) throw invalid('PodLogOptions', pod, causes);
  return {
    container: query.get('container') ?? undefined,
    follow: parseBool(query, 'follow'),
    previous: parseBool(query, 'previous'),
    timestamps: parseBool(query, 'timestamps'),
    tailLines,
    limitBytes,
    since: sinceSeconds !== undefined ? Date.now() - sinceSeconds * 1000 : sinceTime,
  };
}

/** Splits text into log lines: each keeps its `\n`; a trailing fragment is a line too. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** One open `follow=true` response. */
class LogFollower {
  closed = false;
  readonly #res: ServerResponse;
  readonly #query: LogQuery;
  #remaining: number;
  readonly #onClose: (follower: LogFollower) => void;

  constructor(res: ServerResponse, query: LogQuery, onClose: (follower: LogFollower) => void) {
    this.#res = res;
    this.#query = query;
    this.#remaining = query.limitBytes ?? Number.POSITIVE_INFINITY;
    this.#onClose = onClose;
    res.once('close', () => this.#closed());
  }

  /** Writes records (after the since filter and the byte limit); false once the limit is hit. */
  write(records: readonly LogRecord[]): boolean {
    if (this.closed) return false;
    const text = render(records, this.#query);
    if (text === '') return true;
    let bytes = Buffer.from(text, 'utf8');
    if (bytes.length > this.#remaining) bytes = bytes.subarray(0, this.#remaining);
    this.#remaining -= bytes.length;
    this.#res.write(bytes);
    if (this.#remaining <= 0) {
      this.close();
      return false;
    }
    return true;
  }

  /** Ends the response. */
  close(): void {
    if (this.closed) return;
    this.#res.end();
    this.#closed();
  }

  #closed(): void {
    if (this.closed) return;
    this.closed = true;
    this.#onClose(this);
  }
}

function render(records: readonly LogRecord[], query: LogQuery): string {
  let out = '';
  for (const record of records) {
    if (query.since !== undefined && record.time.getTime() < query.since) continue;
    out += query.timestamps ? `${logTimestamp(record.time)} ${record.text}` : record.text;
  }
  return out;
}

/** The pods/log subresource of the in-memory API server and the {@link PodLogs} handle. */
export class PodLogState implements PodLogs {
  readonly #logs = new Map<string, ContainerLog>();
  readonly #pods: ResourceStore;
  /** Drops a deleted pod's logs and ends its follow streams. */
  readonly #sink: EventSink = {
    namespace: undefined,
    deliver: (event: StoredEvent) => {
      if (event.type === 'DELETED') this.#podDeleted(event.object.namespace, event.object.name);
    },
  };

  /** @param pods the pods store: deletions are watched, pods looked up for default containers. */
  constructor(pods: ResourceStore) {
    this.#pods = pods;
    pods.addWatcher(this.#sink);
  }

  append(namespace: string, pod: string, text: string, options: PodLogWriteOptions = {}): void {
    const log = this.#log(namespace, pod, options.container, true);
    const time = options.time ?? new Date();
    const records = splitLines(text).map((line) => ({ time, text: line }));
    log.ended = false;
    log.records.push(...records);
    for (const follower of [...log.followers]) follower.write(records);
  }

  set(namespace: string, pod: string, text: string, options: PodLogWriteOptions = {}): void {
    const log = this.#log(namespace, pod, options.container, true);
    log.records = [];
    this.append(namespace, pod, text, options);
  }

  end(namespace: string, pod: string, options: PodLogContainerOptions = {}): void {
    const log = this.#log(namespace, pod, options.container, true);
    log.ended = true;
    for (const follower of [...log.followers]) follower.close();
  }

  get(namespace: string, pod: string, options: PodLogContainerOptions = {}): string {
    const log = this.#log(namespace, pod, options.container, false);
    return log.records.map((record) => record.text).join('');
  }

  clear(): void {
    this.closeAll();
    this.#logs.clear();
  }

  /** Ends every open follow stream (the server is stopping). */
  closeAll(): void {
    for (const log of this.#logs.values()) {
      for (const follower of [...log.followers]) follower.close();
    }
  }

  /**
   * Answers `GET .../pods/{name}/log`: validates the options (422), looks the pod up with
   * `getPod` (which throws 404), picks the container (400) and writes the log as text/plain,
   * keeping the response open for `follow=true`.
   */
  serve(query: URLSearchParams, res: ServerResponse, name: string, getPod: () => Entry): void {
    const options = parseLogQuery(query, name);
    const pod = getPod();
    const container = resolveContainer(pod.obj, name, options.container);
    if (options.previous) {
      throw badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
    }
    const log = this.#logs.get(this.#key(pod.namespace, name, container));
    const all = log?.records ?? [];
    const records =
      options.tailLines === undefined ? all : all.slice(all.length - options.tailLines);
    const headers = { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' };
    if (!options.follow || log?.ended) {
      let bytes = Buffer.from(render(records, options), 'utf8');
      if (options.limitBytes !== undefined) bytes = bytes.subarray(0, options.limitBytes);
      res.writeHead(200, { ...headers, 'Content-Length': bytes.length });
      res.end(bytes);
      return;
    }
    res.writeHead(200, headers);
    res.flushHeaders();
    const target = log ?? this.#log(pod.namespace, name, container, true);
    const follower = new LogFollower(res, options, (f) => target.followers.delete(f));
    if (!follower.write(records)) return;
    target.followers.add(follower);
  }

  #key(namespace: string, pod: string, container: string): string {
    return `${namespace}/${pod}/${container}`;
  }

  #log(
    namespace: string,
    pod: string,
    container: string | undefined,
    create: boolean,
  ): ContainerLog {
    const key = this.#key(namespace, pod, container ?? this.#onlyContainer(namespace, pod));
    let log = this.#logs.get(key);
    if (!log) {
      log = { records: [], ended: false, followers: new Set() };
      if (create) this.#logs.set(key, log);
    }
    return log;
  }

  #onlyContainer(namespace: string, pod: string): string {
    const entry = this.#pods.get(`${namespace}/${pod}`);
    if (!entry) {
      throw new Error(
        `pod ${namespace}/${pod} does not exist: name the container to write its log before the pod is created`,
      );
    }
    const names = containerNames(entry.obj, 'containers');
    if (names.length !== 1) {
      throw new Error(
        `pod ${namespace}/${pod} has ${names.length} containers ([${names.join(' ')}]): name the container`,
      );
    }
    return names[0] as string;
  }

  #podDeleted(namespace: string, pod: string): void {
    const prefix = `${namespace}/${pod}/`;
    for (const [key, log] of [...this.#logs]) {
      if (!key.startsWith(prefix)) continue;
      this.#logs.delete(key);
      for (const follower of [...log.followers]) follower.close();
    }
  }
}
