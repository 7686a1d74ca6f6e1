import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  type JsonObject,
  type JsonValue,
} from '@kubets/apimachinery';
import { type Document, LineCounter, parseAllDocuments } from 'yaml';
import { CodegenError, CodegenSyntaxError, type PathSegment } from './errors.js';

export type { JsonObject, JsonValue } from '@kubets/apimachinery';

/** One served version of a custom resource, as the generator sees it. */
export interface CrdVersion {
  /** The version name, e.g. `v1`, `v1beta1`. */
  readonly name: string;
  /** Whether this is the storage version. */
  readonly storage: boolean;
  /** Whether the version is marked deprecated. */
  readonly deprecated: boolean;
  /** The deprecation warning the server sends, when set. */
  readonly deprecationWarning: string | undefined;
  /** The `openAPIV3Schema` of the version, if the CRD has one. */
  readonly schema: JsonObject | undefined;
  /** Where {@link schema} is in the document, for error messages. */
  readonly schemaPath: readonly PathSegment[];
  /** The subresources the version serves (`status`, `scale`), sorted. */
  readonly subresources: readonly string[];
}

/** A CustomResourceDefinition reduced to what code generation needs. */
export interface CrdModel {
  /** The input file's name, as given. */
  readonly file: string;
  /** 1-based document index, when the file has several documents. */
  readonly document: number | undefined;
  /** `metadata.name`, e.g. `mydemos.crddemo.k8s.io`. */
  readonly name: string;
  /** The API group, e.g. `crddemo.k8s.io`. */
  readonly group: string;
  /** The kind, e.g. `Mydemo`. */
  readonly kind: string;
  /** The list kind, `<kind>List` unless the CRD names another. */
  readonly listKind: string;
  /** The plural resource name used in URLs, e.g. `mydemos`. */
  readonly plural: string;
  /** The singular name, lower-case kind unless the CRD names another. */
  readonly singular: string;
  /** Short names (`kubectl get md`). */
  readonly shortNames: readonly string[];
  /** True for `scope: Namespaced`, false for `Cluster`. */
  readonly namespaced: boolean;
  /** The served versions, in the CRD's order. */
  readonly versions: readonly CrdVersion[];
}

const crdApiVersions = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'];
const kindPattern = /^[A-Z][A-Za-z0-9]*$/;

/** Reports problems in one YAML document with their path and line. */
export interface Reader {
  /** The input file's name, as given. */
  readonly file: string;
  /** 1-based document index, when the file has several documents. */
  readonly document: number | undefined;
  /** The 1-based line of the node at `path`, or of its nearest ancestor that exists. */
  lineOf(path: readonly PathSegment[]): number | undefined;
  /** An error at `path`. */
  error(path: readonly PathSegment[], reason: string): CodegenError;
}

/** The {@link Reader} of one parsed YAML document. */
export class DocumentReader implements Reader {
  readonly file: string;
  readonly document: number | undefined;
  readonly #doc: Document;
  readonly #lines: LineCounter;

  constructor(file: string, document: number | undefined, doc: Document, lines: LineCounter) {
    this.file = file;
    this.document = document;
    this.#doc = doc;
    this.#lines = lines;
  }

  /** The 1-based line of the node at `path`, or of its nearest ancestor that exists. */
  lineOf(path: readonly PathSegment[]): number | undefined {
    for (let n = path.length; n >= 0; n--) {
      const node = this.#doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] };
      if (node && typeof node === 'object' && Array.isArray(node.range)) {
        return this.#lines.linePos(node.range[0]).line;
      }
    }
    return undefined;
  }

  /** An error at `path`. */
  error(path: readonly PathSegment[], reason: string): CodegenError {
    const line = this.lineOf(path);
    return new CodegenError(
      {
        file: this.file,
        path,
        ...(this.document === undefined ? {} : { document: this.document }),
        ...(line === undefined ? {} : { line }),
      },
      reason,
    );
  }
}

/** `typeof`-style name of a JSON value, for messages. */
export function describe(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** True for a mapping. */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(obj: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function missing(reader: Reader, path: readonly PathSegment[], key: string): never {
  throw reader.error(path, `missing "${key}"`);
}

// Every reader of a typed field: absent and `null` read as undefined, any other value must
// pass `is` or fails at the key with what was expected instead.
function optionalField<T extends JsonValue>(
  reader: Reader,
  obj: JsonObject,
  path: readonly PathSegment[],
  key: string,
  is: (value: JsonValue) => value is T,
  expected: string,
): T | undefined {
  const value = field(obj, key);
  if (value === undefined || value === null) return undefined;
  if (!is(value))
    throw reader.error([...path, key], `expected ${expected}, got ${describe(value)}`);
  return value;
}

const isString = (value: JsonValue): value is string => typeof value === 'string';
const isBoolean = (value: JsonValue): value is boolean => typeof value === 'boolean';
const isList = (value: JsonValue): value is JsonValue[] => Array.isArray(value);

function optionalObject(
  reader: Reader,
  obj: JsonObject,
  path: readonly PathSegment[],
  key: string,
): JsonObject | undefined {
  return optionalField(reader, obj, path, key, isObject, 'a mapping');
}

function requireObject(
  reader: Reader,
  obj: JsonObject,
  path: readonly PathSegment[],
  key: string,
): JsonObject {
  return optionalObject(reader, obj, path, key) ?? missing(reader, path, key);
}

// `''` reads as absent too, so that a required string is never empty.
function optionalString(
  reader: Reader,
  obj: JsonObject,
  path: readonly PathSegment[],
  key: string,
): string | undefined {
  return optionalField(reader, obj, path, key, isString, 'a string') || undefined;
}

function requireString(
  reader: Reader,
  obj: JsonObject,
  path: readonly PathSegment[],
  key: string,
): string {
  return optionalString(reader, obj, path, key) ?? missing(reader, path, key);
}

function optionalBoolean(
  reader: Reader,
  obj: JsonObject,
  path: readonly PathSegment[],
  key: string,
): boolean | undefined {
  return optionalField(reader, obj, path, key, isBoolean, 'true or false');
}

function optionalList(
  reader: Reader,
  obj: JsonObject,
  path: readonly PathSegment[],
  key: string,
): JsonValue[] | undefined {
  return optionalField(reader, obj, path, key, isList, 'a list');
}

function subresourcesOf(
  reader: Reader,
  obj: JsonObject | undefined,
  path: readonly PathSegment[],
): string[] {
  if (!obj) return [];
  const out: string[] = [];
  for (const name of ['scale', 'status']) {
    if (optionalObject(reader, obj, path, name) !== undefined) out.push(name);
  }
  return out;
}

function schemaOf(
  reader: Reader,
  holder: JsonObject | undefined,
  path: readonly PathSegment[],
): { schema: JsonObject | undefined; path: readonly PathSegment[] } {
  if (!holder) return { schema: undefined, path };
  const schema = optionalObject(reader, holder, path, 'openAPIV3Schema');
  return { schema, path: [...path, 'openAPIV3Schema'] };
}

function readVersions(
  reader: Reader,
  spec: JsonObject,
  v1: boolean,
): { versions: CrdVersion[]; all: number } {
  const specPath = ['spec'];
  const list = optionalList(reader, spec, specPath, 'versions');
  const topVersion = v1 ? undefined : optionalString(reader, spec, specPath, 'version');
  if (v1 && spec.version !== undefined) {
    throw reader.error(
      [...specPath, 'version'],
      'apiextensions.k8s.io/v1 has no "version" field: list versions under "versions"',
    );
  }
  // v1beta1 keeps the schema and subresources at the top level, shared by every version.
  const topSchema = v1
    ? { schema: undefined, path: specPath }
    : schemaOf(reader, optionalObject(reader, spec, specPath, 'validation'), [
        ...specPath,
        'validation',
      ]);
  const topSubresources = v1
    ? []
    : subresourcesOf(reader, optionalObject(reader, spec, specPath, 'subresources'), [
        ...specPath,
        'subresources',
      ]);

  if (list === undefined || list.length === 0) {
    if (topVersion === undefined) {
      throw reader.error(specPath, v1 ? 'missing "versions"' : 'missing "versions" (or "version")');
    }
    checkVersionName(reader, [...specPath, 'version'], topVersion);
    return {
      all: 1,
      versions: [
        {
          name: topVersion,
          storage: true,
          deprecated: false,
          deprecationWarning: undefined,
          schema: topSchema.schema,
          schemaPath: topSchema.path,
          subresources: topSubresources,
        },
      ],
    };
  }

  const versions: CrdVersion[] = [];
  const seen = new Set<string>();
  list.forEach((entry, index) => {
    const path = [...specPath, 'versions', index];
    if (!isObject(entry)) throw reader.error(path, `expected a mapping, got ${describe(entry)}`);
    const name = requireString(reader, entry, path, 'name');
    checkVersionName(reader, [...path, 'name'], name);
    if (seen.has(name)) throw reader.error([...path, 'name'], `version "${name}" is listed twice`);
    seen.add(name);
    const served = optionalBoolean(reader, entry, path, 'served');
    if (v1 && served === undefined) throw reader.error(path, 'missing "served"');
    const storage = optionalBoolean(reader, entry, path, 'storage') ?? false;
    const own = schemaOf(reader, optionalObject(reader, entry, path, 'schema'), [
      ...path,
      'schema',
    ]);
    const schema = own.schema ?? topSchema.schema;
    const schemaPath = own.schema ? own.path : topSchema.path;
    const ownSubresources = optionalObject(reader, entry, path, 'subresources');
    const subresources = ownSubresources
      ? subresourcesOf(reader, ownSubresources, [...path, 'subresources'])
      : topSubresources;
    if (served === false) return;
    versions.push({
      name,
      storage,
      deprecated: optionalBoolean(reader, entry, path, 'deprecated') ?? false,
      deprecationWarning: optionalString(reader, entry, path, 'deprecationWarning'),
      schema,
      schemaPath,
      subresources,
    });
  });
  if (topVersion !== undefined && !seen.has(topVersion)) {
    throw reader.error(
      [...specPath, 'version'],
      `"${topVersion}" must be the first entry of "versions"`,
    );
  }
  return { versions, all: list.length };
}

function checkVersionName(reader: Reader, path: readonly PathSegment[], name: string): void {
  if (isDNS1035Label(name).length > 0) {
    throw reader.error(
      path,
      `invalid version name "${name}": must be a lower-case DNS label starting with a letter, e.g. v1`,
    );
  }
}

/** Turns one parsed document (a CRD) into a {@link CrdModel}. */
export function readCrd(reader: Reader, doc: JsonObject): CrdModel {
  const apiVersion = requireString(reader, doc, [], 'apiVersion');
  const kind = requireString(reader, doc, [], 'kind');
  if (kind !== 'CustomResourceDefinition') {
    throw reader.error(['kind'], `not a CustomResourceDefinition: kind is "${kind}"`);
  }
  if (!crdApiVersions.includes(apiVersion)) {
    throw reader.error(
      ['apiVersion'],
      `unsupported apiVersion "${apiVersion}": expected ${crdApiVersions.join(' or ')}`,
    );
  }
  const v1 = apiVersion === 'apiextensions.k8s.io/v1';
  const metadata = requireObject(reader, doc, [], 'metadata');
  const name = requireString(reader, metadata, ['metadata'], 'name');
  const spec = requireObject(reader, doc, [], 'spec');
  const group = requireString(reader, spec, ['spec'], 'group');
  if (isDNS1123Subdomain(group).length > 0 || !group.includes('.')) {
    throw reader.error(
      ['spec', 'group'],
      `invalid group "${group}": must be a lower-case DNS subdomain with at least one dot`,
    );
  }
  const names = requireObject(reader, spec, ['spec'], 'names');
  const namesPath = ['spec', 'names'];
  const plural = requireString(reader, names, namesPath, 'plural');
  if (isDNS1123Label(plural).length > 0) {
    throw reader.error(
      [...namesPath, 'plural'],
      `invalid plural "${plural}": must be a lower-case DNS label`,
    );
  }
  const crdKind = requireString(reader, names, namesPath, 'kind');
  if (!kindPattern.test(crdKind)) {
    throw reader.error(
      [...namesPath, 'kind'],
      `invalid kind "${crdKind}": must start with an upper-case letter and contain only letters and digits`,
    );
  }
  const listKind = optionalString(reader, names, namesPath, 'listKind') ?? `${crdKind}List`;
  if (!kindPattern.test(listKind) || listKind === crdKind) {
    throw reader.error([...namesPath, 'listKind'], `invalid listKind "${listKind}"`);
  }
  const singular = optionalString(reader, names, namesPath, 'singular') ?? crdKind.toLowerCase();
  const shortNames = (optionalList(reader, names, namesPath, 'shortNames') ?? []).map(
    (value, i) => {
      if (typeof value !== 'string') {
        throw reader.error(
          [...namesPath, 'shortNames', i],
          `expected a string, got ${describe(value)}`,
        );
      }
      return value;
    },
  );
  if (name !== `${plural}.${group}`) {
    throw reader.error(
      ['metadata', 'name'],
      `must be "<plural>.<group>", i.e. "${plural}.${group}", not "${name}"`,
    );
  }
  const scope = requireString(reader, spec, ['spec'], 'scope');
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    throw reader.error(
      ['spec', 'scope'],
      `invalid scope "${scope}": expected Namespaced or Cluster`,
    );
  }
  const { versions } = readVersions(reader, spec, v1);
  if (versions.length === 0) throw reader.error(['spec', 'versions'], 'no version is served');
  return {
    file: reader.file,
    document: reader.document,
    name,
    group,
    kind: crdKind,
    listKind,
    plural,
    singular,
    shortNames,
    namespaced: scope === 'Namespaced',
    versions,
  };
}

/** A parsed CRD together with the reader of its document (for schema errors). */
export interface ParsedCrd {
  /** The CRD's names, scope and versions, ready for code generation. */
  readonly model: CrdModel;
  /** The YAML document's reader, to point schema errors at a line and path. */
  readonly reader: Reader;
}

/**
 * Parses YAML text holding one or more CustomResourceDefinitions (`---`-separated documents,
 * or a `kind: List` with CRD `items`). Empty documents are skipped.
 *
 * @throws {CodegenError} for a YAML syntax error, a document that is not a CRD, or a CRD
 *   missing what code generation needs; the message names `fileName` and the path.
 */
export function parseCrds(text: string, fileName: string): ParsedCrd[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false });
  if (!Array.isArray(docs)) return [];
  for (const doc of docs) {
    const err = doc.errors[0];
    if (err) {
      const pos = lines.linePos(err.pos[0]);
      throw new CodegenSyntaxError(fileName, err.message, pos.line, pos.col);
    }
  }
  const values: { doc: Document; value: JsonValue }[] = [];
  for (const doc of docs) {
    let value: JsonValue | undefined;
    try {
      value = doc.toJS({ maxAliasCount: 1000 }) as JsonValue | undefined;
    } catch (err) {
      const line = doc.contents?.range ? lines.linePos(doc.contents.range[0]).line : undefined;
      throw new CodegenSyntaxError(fileName, (err as Error).message, line);
    }
    if (value !== null && value !== undefined) values.push({ doc, value }); // skip empty documents
  }
  const out: ParsedCrd[] = [];
  values.forEach(({ doc, value }, index) => {
    const reader = new DocumentReader(
      fileName,
      values.length > 1 ? index + 1 : undefined,
      doc,
      lines,
    );
    if (!isObject(value)) throw reader.error([], `expected a mapping, got ${describe(value)}`);
    if (value.kind === 'List' || value.kind === 'CustomResourceDefinitionList') {
      const items = optionalList(reader, value, [], 'items') ?? [];
      items.forEach((item, i) => {
        if (!isObject(item))
          throw reader.error(['items', i], `expected a mapping, got ${describe(item)}`);
        const itemReader = prefixedReader(reader, ['items', i]);
        out.push({ model: readCrd(itemReader, item), reader: itemReader });
      });
      return;
    }
    out.push({ model: readCrd(reader, value), reader });
  });
  return out;
}

/** A reader for an item nested in a `kind: List` document: paths get the item's prefix. */
function prefixedReader(inner: Reader, prefix: readonly PathSegment[]): Reader {
  return {
    file: inner.file,
    document: inner.document,
    lineOf: (path) => inner.lineOf([...prefix, ...path]),
    error: (path, reason) => inner.error([...prefix, ...path], reason),
  };
}
