// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers).
import { afterAll, expect, it } from 'vitest';
import { admissionReview, certDir, post } from '../test/tls.js';

const certs = await certDir();
process.env.WEBHOOK_CERT_DIR = certs.dir;
process.env.WEBHOOK_PORT = '0';
afterAll(() => certs.cleanup());

// readme:start
import {
  AdmissionDenied,
  admissionEndpoint,
  defaultingHandler,
  mutatingPath,
  validatingHandler,
  validatingPath,
  WebhookServer,
} from './index.js';

interface Website {
  metadata: { name: string };
  spec: { image?: string; port: number };
}
const website = { group: 'demo.example.com', version: 'v1', kind: 'Website', resource: 'websites' };

const server = new WebhookServer({
  port: Number(process.env.WEBHOOK_PORT ?? 9443),
  // tls.crt and tls.key, read again whenever they change (a cert-manager Secret volume)
  certDir: process.env.WEBHOOK_CERT_DIR ?? '/tmp/k8s-webhook-server/serving-certs',
});
server.register(
  mutatingPath(website), // /mutate-demo-example-com-v1-website
  admissionEndpoint(
    defaultingHandler<Website>({
      default(site) {
        site.spec.image ??= 'nginx:1.27'; // the answer is the JSON Patch of this change
      },
    }),
  ),
);
server.register(
  validatingPath(website), // /validate-demo-example-com-v1-website
  admissionEndpoint(
    validatingHandler<Website>({
      validateCreate(site, { request }) {
        if (site.spec.image !== undefined && !site.spec.image.includes(':')) {
          throw new AdmissionDenied(`Website ${site.metadata.name} is invalid`, {
            causes: [{ reason: 'FieldValueInvalid', field: 'spec.image', message: 'needs a tag' }],
          });
        }
        return request.dryRun ? ['dry run'] : [];
      },
    }),
  ),
);
const shutdown = new AbortController(); // a real process aborts it on SIGTERM
const serving = server.start(shutdown.signal);
const { port } = await server.listening();
console.log(`serving webhooks on port ${port}`);
// readme:end

it('runs the README example: defaults the image, refuses an image without a tag', async () => {
  const options = { ca: certs.caPem, contentType: 'application/json' };
  const defaulted = await post(
    port,
    '/mutate-demo-example-com-v1-website',
    admissionReview({ metadata: { name: 'a' }, spec: { port: 80 } }),
    options,
  );
  const patch = (defaulted.body as { response: { patch: string } }).response.patch;
  expect(JSON.parse(Buffer.from(patch, 'base64').toString())).toEqual([
    { op: 'add', path: '/spec/image', value: 'nginx:1.27' },
  ]);
  const refused = await post(
    port,
    '/validate-demo-example-com-v1-website',
    admissionReview({ metadata: { name: 'a' }, spec: { image: 'nginx', port: 80 } }),
    options,
  );
  expect(refused.body).toMatchObject({
    response: {
      allowed: false,
      status: { code: 422, reason: 'Invalid', message: 'Website a is invalid' },
    },
  });
  shutdown.abort();
  await serving;
});
