// Reading one kubeconfig document into client-go's v1 types (clientcmd-api.ts), as clientcmd's
// `Load` does before merging. The YAML parser is js-yaml (as in @kubernetes/client-node): one
// file, where the `yaml` package loads seventy modules; reading a kubeconfig with it adds about
// 3 MB of RSS against about 12 MB (docs/benchmarks.md, Startup). It is required on the first
// parse of a YAML text, not on import: an in-cluster process never needs it, and a JSON text
// (JSON is YAML) is read with JSON.parse. `loadConfig` is synchronous, so it is required.
import { dirname, isAbsolute, join, sep } from 'node:path';
import { requireModule } from './builtins.js';
import type {
  Kubeconfig,
  KubeconfigAuthInfo,
  KubeconfigCluster,
  KubeconfigNamedAuthInfo,
  KubeconfigNamedCluster,
  KubeconfigNamedContext,
} from './clientcmd-api.js';
import { ConfigError } from './errors.js';

type JsYaml = typeof import('js-yaml');

let jsYaml: JsYaml | undefined;

// At most 100 aliases in a document, as the `yaml` package kubets used before allowed (js-yaml
// has no limit unless asked): an alias shares its node, but whatever walks the result later (a
// copy, JSON) expands it, so a few lines of anchors could stand for a huge document.
const maxAliases = 100;

/**
 * The one YAML 1.2 document of `text` (core schema: no timestamps, no `<<` merge keys), or
 * `undefined` for a file holding none. A kubeconfig is one document: a second one is refused
 * rather than silently ignored.
 */
function parseYaml(text: string): unknown {
  const json = parseJsonMapping(text);
  if (json !== notJson) return json;
  jsYaml ??= requireModule('js-yaml') as JsYaml;
  // `json: true`: a key given twice in a mapping keeps its last value instead of failing the
  // read, as client-go's non-strict YAML decoding (sigs.k8s.io/yaml YAMLToJSON) keeps it.
  const documents = jsYaml.loadAll(text, { schema: jsYaml.CORE_SCHEMA, maxAliases, json: true });
  if (documents.length > 1) {
    throw new ShapeError(`holds ${documents.length} YAML documents; a kubeconfig is one`);
  }
  return documents[0];
}

const notJson = Symbol('not JSON');

/**
 * The mapping a text that is a JSON object holds, read with `JSON.parse`: a JSON text is a
 * YAML document with the same values, and `JSON.parse` reads it natively, without loading the
 * YAML parser or running its character-by-character scanner over the base64 of certificate
 * data (hot enough there for V8 to compile it, which pages in the optimizing compiler: about
 * 5 MB of RSS, docs/benchmarks.md, Startup). A key given twice in an object keeps its last
 * value, as client-go reads it and as the YAML parser is asked to. Anything else (YAML,
 * or JSON that does not parse) is {@link notJson}, and goes to the YAML parser, whose error
 * messages say what is wrong.
 */
function parseJsonMapping(text: string): unknown {
  if (!/^[ \t\r\n]*\{/.test(text)) return notJson;
  try {
    return JSON.parse(text);
  } catch {
    return notJson;
  }
}

/** How an error message names the type of a value that is not what it should be. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  const type = typeof value;
  return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`;
}

// A kubeconfig whose shape is wrong, before the file is known; parseKubeconfig names the file.
class ShapeError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function list(document: Record<string, unknown>, key: string): unknown[] {
  const value = document[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw new ShapeError(`${key} is not a list (got ${kindOf(value)})`, key);
  }
  return value;
}

// What is checked here is what every later step relies on: the names, the nesting, and the
// fields whose absence makes an entry meaningless. Values of the entries a context uses are
// checked when the context is used (configFromKubeconfig), naming the context too.
function namedEntries<T>(
  document: Record<string, unknown>,
  key: 'clusters' | 'users' | 'contexts',
  body: 'cluster' | 'user' | 'context',
  required: string | undefined,
): T[] {
  const seen = new Set<string>();
  return list(document, key).map((entry, index) => {
    const at = `${key}[${index}]`;
    if (!isRecord(entry)) throw new ShapeError(`${at} is not a mapping`, at);
    if (!entry.name) throw new ShapeError(`${at}.name is missing`, `${at}.name`);
    if (typeof entry.name !== 'string') {
      throw new ShapeError(`${at}.name must be a string, got ${kindOf(entry.name)}`, `${at}.name`);
    }
    // clientcmd decodes the lists into maps and refuses a name given twice in one file.
    if (seen.has(entry.name)) {
      throw new ShapeError(`duplicate name "${entry.name}" in ${key}`, at);
    }
    seen.add(entry.name);
    const value = entry[body];
    if (body === 'user' && (value === undefined || value === null)) {
      return { ...entry, user: {} } as T;
    }
    if (!isRecord(value)) {
      throw new ShapeError(
        value === undefined || value === null
          ? `${at}.${body} is missing`
          : `${at}.${body} is not a mapping`,
        `${at}.${body}`,
      );
    }
    if (required && !value[required]) {
      throw new ShapeError(`${at}.${body}.${required} is missing`, `${at}.${body}.${required}`);
    }
    return entry as T;
  });
}

/**
 * Parses the text of one kubeconfig file into client-go's v1 types, with the checks every
 * later step relies on: a mapping at the top, `clusters`/`users`/`contexts` lists of named
 * entries (a name given twice is refused, as clientcmd does), each cluster with a `server`
 * and each context with a `cluster`. Relative file references stay as written (relative to
 * the working directory; {@link loadKubeconfig} resolves them against each file's
 * directory). The values inside the entries are checked when a context uses them
 * ({@link configFromKubeconfig}), so the error can name the context too.
 *
 * @param file how error messages name the text, usually its path.
 * @throws {ConfigError} `invalid kubeconfig <file>: <what is wrong>`, in one line.
 */
export function parseKubeconfig(text: string, file = '(text)'): Kubeconfig {
  try {
    return parseDocument(text);
  } catch (err) {
    const field = err instanceof ShapeError ? err.field : undefined;
    const reason = err instanceof Error ? firstLine(err.message) : String(err);
    throw new ConfigError(
      `invalid kubeconfig ${file}: ${reason}`,
      field ? { file, field } : { file },
      { cause: err },
    );
  }
}

/** The first line of a message, trimmed: parser errors go on with an excerpt of the text. */
export function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.trim();
}

function parseDocument(text: string): Kubeconfig {
  const document = parseYaml(text);
  if (!isRecord(document)) {
    throw new ShapeError(
      'not a kubeconfig (expected a YAML mapping with clusters, contexts and users)',
    );
  }
  const current = document['current-context'];
  if (current !== undefined && current !== null && typeof current !== 'string') {
    throw new ShapeError(
      `current-context must be a string, got ${kindOf(current)}`,
      'current-context',
    );
  }
  return {
    ...document,
    clusters: namedEntries<KubeconfigNamedCluster>(document, 'clusters', 'cluster', 'server'),
    users: namedEntries<KubeconfigNamedAuthInfo>(document, 'users', 'user', undefined),
    contexts: namedEntries<KubeconfigNamedContext>(document, 'contexts', 'context', 'cluster'),
    'current-context': current ?? '',
  };
}

/**
 * Makes the file references of a kubeconfig read from `file` absolute against its directory,
 * as clientcmd's `ResolvePaths`: certificate and key files, `tokenFile`, and an exec command
 * that contains a path separator (one without is looked up on `PATH`).
 *
 * @throws {ConfigError} for a reference that is not a string, naming its field and `file`.
 */
export function resolveKubeconfigPaths(kubeconfig: Kubeconfig, file: string): void {
  const directory = dirname(file);
  const resolve = <T extends object>(target: T, key: keyof T & string, field: string): void => {
    const value: unknown = target[key];
    if (value === undefined || value === null || value === '') return;
    if (typeof value !== 'string') {
      throw new ConfigError(
        `invalid ${field} in kubeconfig ${file}: expected a string, got ${kindOf(value)}`,
        { file, field },
      );
    }
    if (!isAbsolute(value)) (target as Record<string, unknown>)[key] = join(directory, value);
  };
  for (const { name, cluster } of kubeconfig.clusters) {
    resolve<KubeconfigCluster>(
      cluster,
      'certificate-authority',
      `clusters[${name}].certificate-authority`,
    );
  }
  for (const { name, user } of kubeconfig.users) {
    resolve<KubeconfigAuthInfo>(user, 'client-certificate', `users[${name}].client-certificate`);
    resolve<KubeconfigAuthInfo>(user, 'client-key', `users[${name}].client-key`);
    resolve<KubeconfigAuthInfo>(user, 'tokenFile', `users[${name}].tokenFile`);
    const exec: unknown = user.exec;
    if (isRecord(exec) && typeof exec.command === 'string' && exec.command.includes(sep)) {
      resolve(exec, 'command', `users[${name}].exec.command`);
    }
  }
}

/** The entry named `name` of one of a kubeconfig's lists. */
export function findNamed<T extends { name: string }>(
  entries: readonly T[],
  name: string | undefined,
): T | undefined {
  return name ? entries.find((entry) => entry.name === name) : undefined;
}
