import type { Readable } from 'node:stream';
import { isBadRequest, isInvalid, isNotFound } from '@kubets/apimachinery';
import { type InMemoryApiServer, startApiServer } from '@kubets/apiserver';
import { statusErrorOf } from '@kubets/test-utils';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clientset } from './clientset.js';

// pods/log against @kubets/apiserver's in-memory API server, which serves container logs that
// the test writes (server.podLogs) the way a kubelet-backed kube-apiserver would. envtest's
// real server has no kubelet; clientset.e2e.test.ts pins down what it answers instead.

let server: InMemoryApiServer;
let clientset: Clientset;
const namespace = 'default';

function pod(name: string, containers: string[]): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: containers.map((c) => ({ name: c, image: 'busybox' })) },
  };
}

/** Reads a stream chunk by chunk until `done(text so far)` holds; leaves the stream open. */
async function readUntil(stream: Readable, done: (text: string) => boolean): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    if (done(text)) return text;
  }
  return text;
}

beforeAll(async () => {
  server = await startApiServer();
  clientset = new Clientset({ host: server.host, qps: -1 });
  const pods = clientset.coreV1().pods(namespace);
  await pods.create(pod('web', ['main']));
  await pods.create(pod('duo', ['app', 'sidecar']));
});

afterAll(async () => {
  await server?.stop();
});

describe('PodClient.getLog / getLogText against the in-memory API server', () => {
  it('reads the log as text, of the only container by default', async () => {
    server.podLogs.set(namespace, 'web', 'starting\nready\n');
    const pods = clientset.coreV1().pods(namespace);
    expect(await pods.getLogText('web')).toBe('starting\nready\n');
    expect(await pods.getLogText('web', { container: 'main' })).toBe('starting\nready\n');
    const stream = await pods.getLog('web');
    expect(await readUntil(stream, () => false)).toBe('starting\nready\n');
  });

  it('selects the container', async () => {
    server.podLogs.set(namespace, 'duo', 'from app\n', { container: 'app' });
    server.podLogs.set(namespace, 'duo', 'from sidecar\n', { container: 'sidecar' });
    const pods = clientset.coreV1().pods(namespace);
    expect(await pods.getLogText('duo', { container: 'app' })).toBe('from app\n');
    expect(await pods.getLogText('duo', { container: 'sidecar' })).toBe('from sidecar\n');
  });

  it('honours tailLines, limitBytes and timestamps', async () => {
    const time = new Date('2024-03-04T05:06:07.089Z');
    server.podLogs.set(namespace, 'web', 'one\ntwo\nthree\n', { time });
    const pods = clientset.coreV1().pods(namespace);
    expect(await pods.getLogText('web', { tailLines: 2 })).toBe('two\nthree\n');
    expect(await pods.getLogText('web', { limitBytes: 5 })).toBe('one\nt');
    expect(await pods.getLogText('web', { tailLines: 1, timestamps: true })).toBe(
      '2024-03-04T05:06:07.089000000Z three\n',
    );
    expect(await pods.getLogText('web', { sinceSeconds: 60 })).toBe('');
  });

  it('follow streams lines as they are appended and ends quietly when the signal aborts', async () => {
    server.podLogs.set(namespace, 'web', 'first\n');
    const controller = new AbortController();
    const stream = await clientset
      .coreV1()
      .pods(namespace)
      .getLog('web', { follow: true, signal: controller.signal });
    const received: string[] = [];
    let appended = 0;
    for await (const chunk of stream) {
      received.push(String(chunk));
      const text = received.join('');
      if (text.endsWith('\n') && appended < 2) {
        appended++;
        server.podLogs.append(namespace, 'web', `line ${appended}\n`);
      } else if (text.endsWith('line 2\n')) {
        controller.abort();
      }
    }
    expect(received.join('')).toBe('first\nline 1\nline 2\n');
    expect(stream.readableEnded).toBe(true);
  });

  it('a follow stream ends when the container stops', async () => {
    server.podLogs.set(namespace, 'web', 'working\n');
    const stream = await clientset.coreV1().pods(namespace).getLog('web', { follow: true });
    const text = await readUntil(stream, (t) => {
      if (t === 'working\n') server.podLogs.end(namespace, 'web');
      return false;
    });
    expect(text).toBe('working\n');
  });

  it('a follow stream ends when the pod is deleted', async () => {
    const pods = clientset.coreV1().pods(namespace);
    await pods.create(pod('short-lived', ['main']));
    server.podLogs.append(namespace, 'short-lived', 'bye\n');
    const stream = await pods.getLog('short-lived', { follow: true });
    const text = await readUntil(stream, (t) => {
      if (t === 'bye\n') void pods.delete('short-lived');
      return false;
    });
    expect(text).toBe('bye\n');
  });

  it('a missing pod is a NotFound StatusError', async () => {
    const pods = clientset.coreV1().pods(namespace);
    const err = await statusErrorOf(pods.getLogText('no-such-pod'));
    expect(isNotFound(err)).toBe(true);
    expect(err.code).toBe(404);
    expect(err.message).toBe('pods "no-such-pod" not found');
    expect(isNotFound(await statusErrorOf(pods.getLog('no-such-pod', { follow: true })))).toBe(
      true,
    );
  });

  it('a bad or missing container is a BadRequest StatusError', async () => {
    const pods = clientset.coreV1().pods(namespace);
    const unknown = await statusErrorOf(pods.getLogText('web', { container: 'nope' }));
    expect(isBadRequest(unknown)).toBe(true);
    expect(unknown.reason).toBe('BadRequest');
    expect(unknown.message).toBe('container nope is not valid for pod web');
    const ambiguous = await statusErrorOf(pods.getLogText('duo'));
    expect(isBadRequest(ambiguous)).toBe(true);
    expect(ambiguous.message).toBe(
      'a container name must be specified for pod duo, choose one of: [app sidecar]',
    );
  });

  it('invalid log options are an Invalid StatusError', async () => {
    const err = await statusErrorOf(
      clientset.coreV1().pods(namespace).getLogText('web', { tailLines: -1 }),
    );
    expect(isInvalid(err)).toBe(true);
    expect(err.code).toBe(422);
  });
});
