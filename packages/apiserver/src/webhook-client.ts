import { request as httpsRequest } from 'node:https';
import type { JsonObject, JsonValue } from './patch.js';

/** A failure reaching a webhook or understanding its answer: subject to `failurePolicy`. */
export class CallingWebhookError extends Error {}

/**
 * Why a webhook named by a `service` reference is not called. kube-apiserver dials the
 * Service through the cluster network, which the in-memory server does not have, and it
 * will not pretend: the call fails as a webhook that cannot be reached does, so
 * `failurePolicy` decides (`Fail` refuses the write with this message, `Ignore` skips the
 * webhook), and the message says what to do instead.
 */
export function serviceReferenceRefusal(service: JsonObject): string {
  const namespace = typeof service.namespace === 'string' ? service.namespace : '';
  const name = typeof service.name === 'string' ? service.name : '';
  const port = typeof service.port === 'number' ? service.port : 443;
  return `the in-memory API server cannot reach service "${namespace}/${name}" (port ${port}): it has no cluster network; give the webhook a clientConfig.url (https://127.0.0.1:<port><path>), as envtest's installed configurations do`;
}

/**
 * The largest answer read from a webhook that carries `objects` objects (a ConversionReview's
 * converted objects; an AdmissionReview's patch counts as one): the server's request body
 * limit (`maxRequestBytes`, 3 MiB by default as kube-apiserver's `--max-request-bytes`) for
 * each, and one more for the rest of the review (base64, status, warnings). kube-apiserver
 * 1.20 reads a webhook's answer whole, bounded only by the timeout; the in-memory server,
 * which runs inside a test process, stops reading past this bound.
 */
export function webhookResponseLimit(maxRequestBytes: number, objects: number): number {
  return maxRequestBytes * (Math.max(objects, 1) + 1);
}

/**
 * POSTs `body` to a webhook's `clientConfig.url` (a `service` reference is refused: see
 * {@link serviceReferenceRefusal}), trusting `caBundle`, with kube-apiserver's `?timeout=`
 * parameter; failures are worded as Go's HTTP client words them. An answer larger than
 * `maxResponseBytes` is refused as soon as it is known to be (from its `Content-Length`, or
 * once that many bytes have come), naming the limit.
 */
export function postJson(
  clientConfig: JsonObject,
  timeoutSeconds: number,
  body: JsonObject,
  maxResponseBytes: number,
): Promise<JsonValue> {
  const url = typeof clientConfig.url === 'string' ? clientConfig.url : undefined;
  if (!url) {
    const service =
      typeof clientConfig.service === 'object' &&
      clientConfig.service !== null &&
      !Array.isArray(clientConfig.service)
        ? clientConfig.service
        : {};
    return Promise.reject(new CallingWebhookError(serviceReferenceRefusal(service)));
  }
  const target = new URL(url);
  target.searchParams.set('timeout', `${timeoutSeconds}s`);
  const shown = `Post "${target.toString()}"`;
  const ca =
    typeof clientConfig.caBundle === 'string' && clientConfig.caBundle !== ''
      ? Buffer.from(clientConfig.caBundle, 'base64').toString('utf8')
      : undefined;
  const payload = JSON.stringify(body);
  return new Promise<JsonValue>((resolve, reject) => {
    const req = httpsRequest(
      target,
      {
        method: 'POST',
        ...(ca ? { ca } : {}),
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'Content-Length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const tooLarge = (): void => {
          const refusal = new CallingWebhookError(
            `${shown}: the answer is larger than ${maxResponseBytes} bytes, the in-memory API server's limit for a webhook's answer`,
          );
          clearTimeout(timer);
          reject(refusal);
          req.destroy(refusal);
        };
        if (Number(res.headers['content-length'] ?? 0) > maxResponseBytes) {
          tooLarge();
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxResponseBytes) tooLarge();
          else chunks.push(chunk);
        });
        res.on('error', (error) => reject(new CallingWebhookError(`${shown}: ${error.message}`)));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          if (code < 200 || code > 299) {
            reject(
              new CallingWebhookError(
                `an error on the server ("${text.trim()}") has prevented the request from succeeding`,
              ),
            );
            return;
          }
          try {
            resolve(JSON.parse(text) as JsonValue);
          } catch (error) {
            reject(new CallingWebhookError((error as Error).message));
          }
        });
      },
    );
    const timer = setTimeout(() => {
      const deadline = new CallingWebhookError(`${shown}: context deadline exceeded`);
      // Deno's node:https emits no 'error' for a request destroyed before its answer.
      reject(deadline);
      req.destroy(deadline);
    }, timeoutSeconds * 1000);
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error instanceof CallingWebhookError) reject(error);
      else reject(new CallingWebhookError(`${shown}: ${goTransportError(error, target)}`));
    });
    req.end(payload);
  });
}

/** Go's wording of the transport errors a loopback webhook produces. */
function goTransportError(error: NodeJS.ErrnoException, target: URL): string {
  const address = `${target.hostname}:${target.port || '443'}`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'x509: certificate signed by unknown authority';
    default:
      return error.message;
  }
}
