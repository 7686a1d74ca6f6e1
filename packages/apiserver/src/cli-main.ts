import { chmod, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type InMemoryApiServer, startApiServer } from './server.js';

const usage = `Usage: kubets-apiserver [options]

Starts an in-memory Kubernetes API server on 127.0.0.1 and runs until SIGINT/SIGTERM.

Options:
  --port N              TCP port (default: a free port)
  --tls                 serve HTTPS with a generated CA and admin client certificate
  --kubeconfig PATH     write the kubeconfig here (default: a private temporary file,
                        removed on exit); its path is printed on stdout
  --history-size N      events kept per resource for watch replay (default 10000)
  --revision-history N  revisions kept for exact and paged lists (default 10000)
  --bookmark-interval MS  BOOKMARK interval for watches that allow them (default 10000)
  -h, --help            show this help
`;

/** Where {@link startCli} writes: the process's streams, or a test's buffers. */
export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * What `kubets-apiserver <argv>` does before serving: parses the options, starts the server,
 * writes the kubeconfig (mode 0600) and prints its path on stdout. Resolves with the running
 * server, or `undefined` after `--help`.
 */
export async function startCli(
  argv: readonly string[],
  out: CliOutput,
): Promise<InMemoryApiServer | undefined> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string' },
      tls: { type: 'boolean', default: false },
      kubeconfig: { type: 'string' },
      'history-size': { type: 'string' },
      'revision-history': { type: 'string' },
      'bookmark-interval': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    out.stdout(usage);
    return undefined;
  }
  const number = (name: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
    return n;
  };
  const port = number('port', values.port);
  const historySize = number('history-size', values['history-size']);
  const revisionHistory = number('revision-history', values['revision-history']);
  const bookmarkIntervalMs = number('bookmark-interval', values['bookmark-interval']);
  const server = await startApiServer({
    tls: values.tls,
    ...(port !== undefined ? { port } : {}),
    ...(historySize !== undefined ? { historySize } : {}),
    ...(revisionHistory !== undefined ? { revisionHistory } : {}),
    ...(bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs } : {}),
  });
  // Only the path goes to stdout: with --tls the kubeconfig holds the admin client key, which
  // does not belong in a terminal's scrollback or a CI log. Both files are mode 0600.
  let path = server.kubeconfigPath;
  if (values.kubeconfig) {
    path = resolve(values.kubeconfig);
    await writeFile(path, server.kubeconfig, { mode: 0o600 });
    await chmod(path, 0o600); // the mode above applies only to a file that did not exist
  }
  out.stderr(`kubets-apiserver listening on ${server.host}\nkubeconfig written to ${path}\n`);
  out.stdout(`${path}\n`);
  return server;
}
