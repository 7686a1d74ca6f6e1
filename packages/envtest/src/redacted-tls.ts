const inspectCustom = Symbol.for('nodejs.util.inspect.custom');

/** What the TLS material prints as: the key redacted, certificates truncated (as `@kubets/rest`). */
function printable(): Record<string, string> {
  return {
    caData: '--- TRUNCATED ---',
    certData: '--- TRUNCATED ---',
    keyData: '--- REDACTED ---',
  };
}

/**
 * `tls` with its key non-enumerable and printing redacted: `{ ...env.config, qps: -1 }`
 * shares this object, so the copy still authenticates while `util.inspect`, `console.log`
 * and `JSON.stringify` of the config, of the copy or of `env.tls` show no key.
 */
export function redactedTls<T extends { keyData: string }>(tls: T): T {
  const hidden = (value: unknown) => ({
    value,
    enumerable: false,
    configurable: true,
    writable: true,
  });
  Object.defineProperties(tls, {
    keyData: hidden(tls.keyData),
    toJSON: hidden(printable),
    [inspectCustom]: hidden(printable),
  });
  return tls;
}
