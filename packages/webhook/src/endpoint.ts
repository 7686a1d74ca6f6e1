/** A request that reached a webhook path, its body read in full by the server. */
export interface WebhookRequest {
  /**
   * The body; `undefined` when the request declared none (neither `Content-Length` nor
   * `Transfer-Encoding`), as Go's `http.NoBody`.
   */
  readonly body: Uint8Array | undefined;
  /** The `Content-Type` header, if any. */
  readonly contentType: string | undefined;
  /** Aborts when the client goes away or the server stops. */
  readonly signal: AbortSignal;
}

/** A webhook's answer: an HTTP status and a JSON body (none when `undefined`). */
export interface WebhookReply {
  /** The HTTP status code. */
  readonly status: number;
  /** The body, written as JSON. */
  readonly body: unknown;
}

/**
 * What the {@link WebhookServer} serves on one path: an admission or conversion webhook
 * (controller-runtime registers an `http.Handler`; kubets' server owns the transport, so an
 * endpoint works on whole bodies).
 */
export interface WebhookEndpoint {
  /** Answers one request. Never rejects: failures are answers. */
  handle(request: WebhookRequest): Promise<WebhookReply>;
  /**
   * The answer to a request the server refused before the endpoint saw it (body too large,
   * not read in time), in the endpoint's own format.
   */
  refuse(status: number, message: string): WebhookReply;
}
