import type { inspect } from 'node:util';
import { inspectCustom } from './builtins.js';

/**
 * Makes `util.inspect` and `console.log` print instances of `type` as `Name {…}` with what
 * its `toJSON()` returns: the redacted view, never the fields that hold credentials.
 */
export function inspectAsJSON(type: { prototype: { toJSON(): unknown } }, name: string): void {
  Object.defineProperty(type.prototype, inspectCustom, {
    value(
      this: { toJSON(): unknown },
      _depth: number,
      options: Parameters<typeof inspect>[1],
      inspectFn: typeof inspect,
    ): string {
      return `${name} ${inspectFn(this.toJSON(), options)}`;
    },
  });
}
