/** One entry of an HTTP `Warning` response header (RFC 7234), as the API server sends them. */
export interface Warning {
  /** The warn-code; the API server uses 299 ("miscellaneous persistent warning"). */
  code: number;
  /** The warn-agent, `-` when the server does not name itself. */
  agent: string;
  /** The human-readable text, e.g. a deprecation notice. */
  text: string;
}

/**
 * Receives the `Warning` headers of every response (deprecated APIs, unknown fields, ...).
 * The default is to drop them; {@link warningToConsole} prints them.
 */
export type WarningHandler = (warning: Warning) => void;

/** Writes code-299 warnings to `console.warn` as `Warning: <text>`, like kubectl. */
export const warningToConsole: WarningHandler = (warning) => {
  if (warning.code === 299 && warning.text) console.warn(`Warning: ${warning.text}`);
};

/**
 * Wraps a handler so each distinct warning text reaches it only once, as client-go's
 * deduplicating warning writer does for long-running processes.
 */
export function deduplicateWarnings(handler: WarningHandler): WarningHandler {
  const seen = new Set<string>();
  return (warning) => {
    if (seen.has(warning.text)) return;
    seen.add(warning.text);
    handler(warning);
  };
}

/**
 * Parses `Warning` header values (`299 - "text"`, several per header separated by commas,
 * quoted text with backslash escapes, an optional quoted date). Entries that do not parse
 * are skipped rather than failing the request.
 */
export function parseWarningHeaders(values: readonly string[]): Warning[] {
  const warnings: Warning[] = [];
  for (const value of values) parseWarningHeader(value, warnings);
  return warnings;
}

function parseWarningHeader(value: string, into: Warning[]): void {
  let pos = 0;
  const skipSeparators = (): void => {
    while (
      pos < value.length &&
      (value[pos] === ' ' || value[pos] === '\t' || value[pos] === ',')
    ) {
      pos++;
    }
  };
  const readQuoted = (): string | undefined => {
    if (value[pos] !== '"') return undefined;
    pos++;
    let text = '';
    while (pos < value.length) {
      const ch = value[pos++];
      if (ch === '"') return text;
      if (ch === '\\' && pos < value.length) {
        text += value[pos++];
      } else {
        text += ch;
      }
    }
    return undefined; // unterminated
  };
  const skipToNextEntry = (): void => {
    // Resynchronise after a malformed entry: the next comma outside quotes.
    let quoted = false;
    while (pos < value.length) {
      const ch = value[pos];
      if (ch === '\\' && quoted) {
        pos += 2;
        continue;
      }
      if (ch === '"') quoted = !quoted;
      else if (ch === ',' && !quoted) return;
      pos++;
    }
  };

  while (pos < value.length) {
    skipSeparators();
    if (pos >= value.length) break;
    const codeMatch = /^(\d{3}) +([^\s",]+) +/.exec(value.slice(pos));
    if (!codeMatch) {
      skipToNextEntry();
      continue;
    }
    pos += codeMatch[0].length;
    const text = readQuoted();
    if (text === undefined) {
      skipToNextEntry();
      continue;
    }
    // An optional warn-date follows the text; it carries nothing the handler needs.
    const afterText = /^ +"[^"]*"/.exec(value.slice(pos));
    if (afterText) pos += afterText[0].length;
    into.push({ code: Number(codeMatch[1]), agent: codeMatch[2] ?? '-', text });
    skipToNextEntry();
  }
}
