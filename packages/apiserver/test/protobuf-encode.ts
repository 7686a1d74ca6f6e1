import { bytesField, messageField } from '../src/protobuf-write.js';

/**
 * Protobuf bodies for tests: the bodies typed Go clients send (`k8s\0` + runtime.Unknown
 * around a message), built field by field with the server's own writer.
 */

export { bytesField, messageField, varintField } from '../src/protobuf-write.js';

/** One entry of a `map<string, string>` (or bytes) field. */
export function mapEntry(number: number, key: string, value: string | Buffer): Buffer {
  return messageField(number, bytesField(1, key), bytesField(2, value));
}

/** The whole body: the `k8s\0` prefix and a runtime.Unknown holding `raw` as `apiVersion`/`kind`. */
export function protobufBody(apiVersion: string, kind: string, ...raw: Buffer[]): Buffer {
  return Buffer.concat([
    Buffer.from('k8s\u0000', 'latin1'),
    messageField(1, bytesField(1, apiVersion), bytesField(2, kind)),
    bytesField(2, Buffer.concat(raw)),
  ]);
}
