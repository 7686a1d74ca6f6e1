// The README's example (between the readme markers), run as a test with the e2e tests (it
// starts the real binaries): scripts/readme-examples.mjs checks that packages/envtest/README.md
// shows this code verbatim, with `from './index.js'` written as `from '@kubets/envtest'`.

// readme:start
import { request } from 'node:https';
import { startEnvtest } from './index.js';

await using env = await startEnvtest(); // etcd + kube-apiserver on free loopback ports
// env.kubeconfigPath: a kubeconfig (context "envtest", user "admin") for any client

const { caData: ca, certData: cert, keyData: key } = env.tls; // PEM strings
const status = await new Promise<number | undefined>((resolve, reject) => {
  const url = `${env.host}/api/v1/namespaces/default`;
  const req = request(url, { ca, cert, key }, (res) => resolve(res.resume().statusCode));
  req.on('error', reject).end();
}); // 200: the default namespace exists once startEnvtest resolves

// readme:end
import { expect, it } from 'vitest'; // after the example, so sorting imports keeps it out

it('runs the README example: a real API server, stopped at the end of scope', () => {
  expect(status).toBe(200);
  expect(env.host).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
});
