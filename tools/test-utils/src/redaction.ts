// What the redaction tests share: a config holding every kind of credential, and the check
// that a printed object, printed every way `printedForms` prints it, shows none of them.
import assert from 'node:assert/strict';
import { printedForms } from './printed.js';

/** The credentials of `secretConfig()`: every one contains `SECRET-`. */
export const secrets = {
  urlPassword: 'SECRET-URLPASS-xyz',
  token: 'SECRET-TOKEN-xyz',
  password: 'SECRET-PASSWORD-xyz',
  keyData: 'SECRET-KEY-xyz',
} as const;

/**
 * A config (assignable to `Config` of @kubets/rest) with every kind of credential; the server
 * is never contacted, so the key need not be real.
 */
export function secretConfig() {
  return {
    host: `https://admin:${secrets.urlPassword}@127.0.0.1:6443`,
    bearerToken: secrets.token,
    username: 'admin',
    password: secrets.password,
    tls: { certData: 'CERT', keyData: secrets.keyData },
  };
}

/**
 * An assertion that `value`, printed every way `printedForms` prints it, holds no secret: no
 * `SECRET-` (or `SECRET_`: the disk cache turns `-` into `_` in a directory name) and none of
 * `alsoAbsent` (e.g. a base64-encoded Basic credential). Fails naming `what` and the form.
 */
export function noSecretAssertion(
  alsoAbsent: readonly string[] = [],
): (value: unknown, what: string) => void {
  return (value, what) => {
    for (const { how, text } of printedForms(value)) {
      assert.doesNotMatch(text, /SECRET[-_]/, `${what} (${how})`);
      for (const secret of alsoAbsent) {
        assert.ok(!text.includes(secret), `${what} (${how}): contains ${secret}`);
      }
    }
  };
}
