// Kubeconfig parsing without the weight of @kubernetes/client-node's main entry: its
// `index.js` (and `config.js`, which defines `KubeConfig`) load the generated API client and
// the OIDC library, about 90 MB and hundreds of milliseconds. Parsing needs only js-yaml and
// client-node's `config_types.js` (the kubeconfig → Cluster/User/Context conversion
// `KubeConfig.loadFromString` uses), imported by its file path. That deep import is why
// @kubets/rest accepts client-node only within one minor version (package.json, README).
// Both are loaded on the first parse, not on import: an in-cluster process never needs them.
// `loadConfig` is synchronous, so they are required (Node ≥ 22.12 requires ES modules).
import { isAbsolute, join } from 'node:path';
import type { Cluster, Context, KubeConfig, User } from '@kubernetes/client-node';
import { requireModule } from './builtins.js';

type ConfigTypes = typeof import('@kubernetes/client-node/dist/config_types.js');
type Yaml = typeof import('js-yaml');

let parsers: { yaml: Yaml; types: ConfigTypes } | undefined;

function loadParsers(): { yaml: Yaml; types: ConfigTypes } {
  parsers ??= {
    yaml: requireModule('js-yaml') as Yaml,
    types: requireModule('@kubernetes/client-node/dist/config_types.js') as ConfigTypes,
  };
  return parsers;
}

/**
 * What kubets reads from a kubeconfig: the methods of `@kubernetes/client-node`'s
 * `KubeConfig` that {@link configFromKubeConfig} and {@link kubeConfigAuthProvider} call.
 * A `KubeConfig` you loaded yourself is one; {@link loadConfig} uses a lighter object that
 * parses the file the same way without loading client-node's API client.
 */
export type KubeConfigLike = Pick<
  KubeConfig,
  | 'getClusters'
  | 'getUsers'
  | 'getContexts'
  | 'getCurrentContext'
  | 'getContextObject'
  | 'getCluster'
  | 'getUser'
>;

/** Clusters, users and contexts of a kubeconfig, as client-node's `KubeConfig` holds them. */
export interface KubeconfigEntries {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  currentContext: string;
}

/** A parsed kubeconfig with the lookups of client-node's `KubeConfig` (internal). */
export class ParsedKubeConfig implements KubeConfigLike {
  readonly #entries: KubeconfigEntries;

  constructor(entries: KubeconfigEntries) {
    this.#entries = entries;
  }

  getClusters(): Cluster[] {
    return this.#entries.clusters;
  }

  getUsers(): User[] {
    return this.#entries.users;
  }

  getContexts(): Context[] {
    return this.#entries.contexts;
  }

  getCurrentContext(): string {
    return this.#entries.currentContext;
  }

  getContextObject(name: string): Context | null {
    return this.#entries.contexts.find((context) => context.name === name) ?? null;
  }

  getCluster(name: string): Cluster | null {
    return this.#entries.clusters.find((cluster) => cluster.name === name) ?? null;
  }

  getUser(name: string): User | null {
    return this.#entries.users.find((user) => user.name === name) ?? null;
  }
}

/**
 * Parses kubeconfig text as `KubeConfig.loadFromString` does (js-yaml's `load`, then
 * client-node's `newClusters`/`newUsers`/`newContexts`, which throw on a missing name or
 * server). A document that is not a mapping throws a TypeError, as in client-node.
 */
export function parseKubeconfig(text: string): KubeconfigEntries {
  const { yaml, types } = loadParsers();
  const document = yaml.load(text) as Record<string, unknown>;
  return {
    clusters: types.newClusters(document.clusters),
    users: types.newUsers(document.users),
    contexts: types.newContexts(document.contexts),
    currentContext: document['current-context'] as string,
  };
}

/** Resolves relative certificate paths against `directory`, as `KubeConfig.makePathsAbsolute`. */
export function makePathsAbsolute(entries: KubeconfigEntries, directory: string): void {
  const absolute = (file: string): string => (isAbsolute(file) ? file : join(directory, file));
  for (const cluster of entries.clusters) {
    if (cluster.caFile) cluster.caFile = absolute(cluster.caFile);
  }
  for (const user of entries.users) {
    if (user.certFile) user.certFile = absolute(user.certFile);
    if (user.keyFile) user.keyFile = absolute(user.keyFile);
  }
}
