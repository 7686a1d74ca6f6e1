import { createServer, type Server } from 'node:net';

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('could not read the port of a loopback listener'));
      } else {
        resolve(address.port);
      }
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Finds `count` distinct free TCP ports on 127.0.0.1 by binding port 0 and reading the port
 * the kernel picked. All listeners are held open until every port is known, so the ports are
 * distinct; they are then released for the caller's processes to bind (a small race that
 * envtest covers by retrying when a process reports "address already in use").
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    const ports: number[] = [];
    for (const server of servers) ports.push(await listen(server));
    return ports;
  } finally {
    await Promise.all(servers.map((server) => (server.listening ? close(server) : undefined)));
  }
}
