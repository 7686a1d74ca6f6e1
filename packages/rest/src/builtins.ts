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
/** node:fs/promises, on first use. */
export const nodeFsPromises = lazy<typeof import('node:fs/promises')>('node:fs/promises');
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
