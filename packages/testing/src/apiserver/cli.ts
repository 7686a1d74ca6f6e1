#!/usr/bin/env node
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startApiServer } from './server.js';

const usage = `Usage: kubets-apiserver [options]

Starts an in-memory Kubernetes API server on 127.0.0.1 and runs until SIGINT/SIGTERM.

Options:
  --port N              TCP port (default: a free port)
  --tls                 serve HTTPS with a generated CA and admin client certificate
  --kubeconfig PATH     write the kubeconfig here (default: print it to stdout)
  --history-size N      events kept per resource for watch replay (default 10000)
  --bookmark-interval MS  BOOKMARK interval for watches that allow them (default 10000)
  -h, --help            show this help
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      tls: { type: 'boolean', default: false },
      kubeconfig: { type: 'string' },
      'history-size': { type: 'string' },
      'bookmark-interval': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(usage);
    return;
  }
  const number = (name: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
    return n;
  };
  const port = number('port', values.port);
  const historySize = number('history-size', values['history-size']);
  const bookmarkIntervalMs = number('bookmark-interval', values['bookmark-interval']);
  const server = await startApiServer({
    tls: values.tls,
    ...(port !== undefined ? { port } : {}),
    ...(historySize !== undefined ? { historySize } : {}),
    ...(bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs } : {}),
  });
  if (values.kubeconfig) {
    const path = resolve(values.kubeconfig);
    await writeFile(path, server.kubeconfig, { mode: 0o600 });
    process.stderr.write(
      `kubets-apiserver listening on ${server.host}\nkubeconfig written to ${path}\n`,
    );
  } else {
    process.stderr.write(`kubets-apiserver listening on ${server.host}\n`);
    process.stdout.write(server.kubeconfig);
  }
  let stopping = false;
  const shutdown = (): void => {
    if (stopping) return;
    stopping = true;
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `kubets-apiserver: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
