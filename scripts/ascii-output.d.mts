/** `code` with every non-ASCII UTF-16 code unit written as its `\uXXXX` escape. */
export function escapeNonAscii(code: string): string;
/** A tsup plugin that passes every emitted chunk through {@link escapeNonAscii}. */
export const asciiOutput: {
  name: string;
  renderChunk(code: string): { code: string } | undefined;
};
