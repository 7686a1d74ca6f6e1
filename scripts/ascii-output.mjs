// A tsup plugin that keeps a package's built JavaScript ASCII-only.
//
// esbuild escapes non-ASCII characters in strings and identifiers but keeps comments as
// written, and one `→` or `—` in a kept comment makes V8 hold the whole file's source as a
// two-byte string for as long as the process runs: 143 KB of @kubets/rest weighed 286 KB
// on the heap of every idle controller (docs/benchmarks.md, "Startup"). Every non-ASCII
// character left in the output is written as its `\uXXXX` escape, which means the same
// character in a string, a regular expression or an identifier, and is inert in a comment.

const nonAscii = /[\u0080-\uffff]/g;

/** @param {string} code */
export function escapeNonAscii(code) {
  // UTF-16 code units: a character beyond the BMP becomes its two surrogate escapes.
  return code.replace(nonAscii, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The tsup plugin: every emitted chunk goes through {@link escapeNonAscii}. */
export const asciiOutput = {
  name: 'ascii-output',
  /** @param {string} code */
  renderChunk(code) {
    return /[\u0080-\uffff]/.test(code) ? { code: escapeNonAscii(code) } : undefined;
  },
};
