// Node's built-in modules, required on first use instead of imported. An ES module import of
// a built-in reads every export to build its namespace, which runs the module's lazy getters:
// `import 'node:http'` loads undici for http's WebSocket export, about +13 MB of RSS and tens
// of milliseconds, in every process that imports @kubets/rest. `require` hands back the module
// object without touching them, and waiting for the first use keeps a process that only reads
// a kubeconfig (a CLI, a test) from loading HTTP, TLS and streams at all.
// auth-footprint.test.ts checks which built-ins an import and a kubeconfig load pull in.
import { createRequire } from 'node:module';

/** The same `require` for every lazily loaded module of the package. */
export const requireModule = createRequire(import.meta.url);

/** `util.inspect.custom`, without loading node:util: Node registers it under this name. */
export const inspectCustom = Symbol.for('nodejs.util.inspect.custom');

function lazy<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= requireModule(specifier) as T;
    return loaded;
  };
}

/** node:crypto, on first use. */
export const nodeCrypto = lazy<typeof import('node:crypto')>('node:crypto');
/** node:fs, on first use. */
export const nodeFs = lazy<typeof import('node:fs')>('node:fs');
/** node:http, on first use. */
export const nodeHttp = lazy<typeof import('node:http')>('node:http');
/** node:http2, on first use. */
export const nodeHttp2 = lazy<typeof import('node:http2')>('node:http2');
/** node:https, on first use. */
export const nodeHttps = lazy<typeof import('node:https')>('node:https');
/** node:net, on first use. */
export const nodeNet = lazy<typeof import('node:net')>('node:net');
/** node:os, on first use. */
export const nodeOs = lazy<typeof import('node:os')>('node:os');
/** node:stream, on first use. */
export const nodeStream = lazy<typeof import('node:stream')>('node:stream');
/** node:tls, on first use. */
export const nodeTls = lazy<typeof import('node:tls')>('node:tls');
/** node:string_decoder, on first use. */
export const nodeStringDecoder = lazy<typeof import('node:string_decoder')>('node:string_decoder');

// node:fs/promises is not among them: requiring it loads readline, the REPL history, fs
// watchers and node:os with it, +1.9 MB of RSS in a bare process. The callback API of node:fs
// (loaded by Node itself) does the same reads on the same thread pool.

/** `fs.stat` as a promise, without node:fs/promises. */
export function statFile(path: string): Promise<import('node:fs').Stats> {
  return new Promise((resolve, reject) => {
    nodeFs().stat(path, (err, stats) => (err ? reject(err) : resolve(stats)));
  });
}

/** `fs.readFile(path, 'utf8')` as a promise, without node:fs/promises. */
export function readTextFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    nodeFs().readFile(path, 'utf8', (err, text) => (err ? reject(err) : resolve(text)));
  });
}
