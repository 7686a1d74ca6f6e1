#!/usr/bin/env node
import { startCli } from './cli-main.js';

async function main(): Promise<void> {
  const server = await startCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
  if (server === undefined) return;
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
