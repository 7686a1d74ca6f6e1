/** One step of a path inside a YAML document: a mapping key or a sequence index. */
export type PathSegment = string | number;

const identifier = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * Formats a path inside a document the way people write it:
 * `spec.versions[0].schema.openAPIV3Schema.properties.spec`; keys that are not plain words
 * are quoted (`properties["app.kubernetes.io/name"]`).
 */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (identifier.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? '(document)' : out;
}

/** Where in the input an error was found. */
export interface ErrorLocation {
  /** The input file's name, as given. */
  readonly file: string;
  /** The path inside the document, e.g. `spec.names.plural`; empty for the document itself. */
  readonly path: readonly PathSegment[];
  /** 1-based index of the YAML document in a multi-document file, when it has several. */
  readonly document?: number;
  /** 1-based line of the offending node, when known. */
  readonly line?: number;
}

/**
 * Invalid input: not YAML, not a CustomResourceDefinition, or a CRD whose names or schema
 * cannot be turned into code. The message names the file and the path inside it:
 *
 * ```text
 * mydemo.yaml: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.port.type: unknown type "integr" (line 21)
 * ```
 */
export class CodegenError extends Error {
  /** The error's class name, `'CodegenError'`; shown first when the error is printed. */
  override readonly name = 'CodegenError';
  /** The input file's name, as given. */
  readonly file: string;
  /** The path inside the document, formatted (`spec.names.plural`). */
  readonly path: string;
  /** 1-based index of the YAML document, for files with several documents. */
  readonly document: number | undefined;
  /** 1-based line of the offending node, when known. */
  readonly line: number | undefined;
  /** The problem itself, without the location. */
  readonly reason: string;

  constructor(location: ErrorLocation, reason: string, options?: { cause?: unknown }) {
    const path = formatPath(location.path);
    const doc = location.document === undefined ? '' : `document ${location.document}: `;
    const line = location.line === undefined ? '' : ` (line ${location.line})`;
    super(`${location.file}: ${doc}${path}: ${reason}${line}`, options);
    this.file = location.file;
    this.path = path;
    this.document = location.document;
    this.line = location.line;
    this.reason = reason;
  }
}

/** A YAML syntax error, with the line and column the parser reported. */
export class CodegenSyntaxError extends CodegenError {
  /** 1-based column, when the parser reported one. */
  readonly column: number | undefined;

  constructor(file: string, reason: string, line?: number, column?: number) {
    super(line === undefined ? { file, path: [] } : { file, path: [], line }, reason);
    const at = column === undefined ? '' : `, column ${column}`;
    const where = line === undefined ? '' : `line ${line}${at}: `;
    this.message = `${file}: ${where}YAML syntax error: ${reason}`;
    this.column = column;
  }
}

/** True for a {@link CodegenError} (including syntax errors). */
export function isCodegenError(err: unknown): err is CodegenError {
  return err instanceof CodegenError;
}
