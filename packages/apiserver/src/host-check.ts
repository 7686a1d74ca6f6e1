import type { IncomingMessage } from 'node:http';

/** `localhost`, `127.x.x.x` or `[::1]`, each with an optional port: names of this machine. */
const loopbackHost =
  /^(?:localhost|127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}|\[::1\])(?::\d{1,5})?$/i;

/**
 * Why a request must be refused because it may come from a web page, or `undefined`. The
 * server listens on 127.0.0.1 only and asks for no credentials, so the browser is the way in:
 * a page whose own host name resolves to 127.0.0.1 (DNS rebinding) sends its name as `Host`,
 * and a page calling from another origin sends `Origin`. Clients (kubectl, client-go, kubets)
 * send the loopback address they connected to and no `Origin`.
 */
export function foreignRequest(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (host !== undefined && !loopbackHost.test(host)) {
    return `Host ${JSON.stringify(host)} is not a loopback name or address: the in-memory API server answers requests for localhost, 127.0.0.1 or [::1] only`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let originHost: string | undefined;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = undefined; // "null" (sandboxed pages, file: URLs) or garbage
    }
    if (originHost === undefined || originHost === '' || !loopbackHost.test(originHost)) {
      return `Origin ${JSON.stringify(origin)} is not a loopback origin: the in-memory API server refuses cross-origin requests from web pages`;
    }
  }
  return undefined;
}
