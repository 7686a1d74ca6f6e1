import type { IncomingMessage, ServerResponse } from 'node:http';

/** A health or readiness check: resolves when healthy, throws (or rejects) when not. */
export type HealthChecker = () => void | Promise<void>;

/** @internal Named checks, one set per endpoint (`/healthz`, `/readyz`). */
export class HealthChecks {
  readonly #checks = new Map<string, HealthChecker>();

  constructor(readonly kind: string) {}

  /** Adds a check; names are unique per endpoint and are URL path segments. */
  add(name: string, check: HealthChecker): void {
    if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
      throw new TypeError(
        `${this.kind} check name must be letters, digits, '.', '_' or '-', got ${JSON.stringify(name)}`,
      );
    }
    if (typeof check !== 'function') {
      throw new TypeError(`${this.kind} check ${name} must be a function`);
    }
    if (this.#checks.has(name)) throw new Error(`${this.kind} check ${name} was already added`);
    this.#checks.set(name, check);
  }

  /**
   * Answers as controller-runtime's healthz handler: `/<kind>` runs every check (200 `ok`,
   * or 500 with one `[+]name ok` / `[-]name failed: reason withheld` line each, also with
   * `?verbose`; `?exclude=name` skips one), `/<kind>/<name>` runs one (200 `ok` or 500 with
   * the error).
   */
  async serve(subpath: string, url: URL, res: ServerResponse): Promise<void> {
    if (subpath !== '') {
      const check = this.#checks.get(subpath);
      if (check === undefined) return notFound(res);
      const error = await failure(check);
      res.writeHead(error === undefined ? 200 : 500, textHeaders);
      res.end(error === undefined ? 'ok' : `internal server error: ${error}\n`);
      return;
    }
    const excluded = new Set(url.searchParams.getAll('exclude'));
    const parts: string[] = [];
    let failed = false;
    const names = [...this.#checks.keys()].sort();
    const results = await Promise.all(
      names.map(async (name) => {
        if (excluded.delete(name)) return `[+]${name} excluded: ok`;
        const error = await failure(this.#checks.get(name) as HealthChecker);
        if (error === undefined) return `[+]${name} ok`;
        failed = true;
        // The reason is withheld from an unauthenticated endpoint, as controller-runtime does;
        // `/<kind>/<name>` shows it.
        return `[-]${name} failed: reason withheld`;
      }),
    );
    parts.push(...(names.length === 0 ? ['[+]ping ok'] : results));
    res.writeHead(failed ? 500 : 200, textHeaders);
    if (!failed && !url.searchParams.has('verbose')) {
      res.end('ok');
      return;
    }
    if (excluded.size > 0) {
      parts.push(
        `warn: some health checks cannot be excluded: no matches for ${[...excluded].map((n) => `"${n}"`).join(', ')}`,
      );
    }
    parts.push(failed ? 'healthz check failed' : 'healthz check passed');
    res.end(`${parts.join('\n')}\n`);
  }
}

const textHeaders = {
  'content-type': 'text/plain; charset=utf-8',
  'x-content-type-options': 'nosniff',
};

function notFound(res: ServerResponse): void {
  res.writeHead(404, textHeaders).end('404 page not found\n');
}

async function failure(check: HealthChecker): Promise<string | undefined> {
  try {
    await check();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** @internal Routes `/healthz[/name]` and `/readyz[/name]` to their checks. */
export function healthProbeHandler(
  endpoints: readonly HealthChecks[],
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [, kind = '', sub = '', ...rest] = url.pathname.split('/');
    const checks = endpoints.find((e) => e.kind === kind);
    if (checks === undefined || rest.length > 0) return notFound(res);
    await checks.serve(sub, url, res);
  };
}
