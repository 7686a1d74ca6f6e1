import { describe, isObject, type JsonObject, type JsonValue, type Reader } from './crd.js';
import type { PathSegment } from './errors.js';

/** One property of a generated interface. */
export interface PropertyDecl {
  /** The JSON field name. */
  readonly name: string;
  /** Whether the schema lists it under `required`. */
  readonly required: boolean;
  /** The TypeScript type, rendered. */
  readonly type: string;
  /** TSDoc lines (without comment markers). */
  readonly doc: readonly string[];
}

/** A generated interface: a schema object with `properties`. */
export interface InterfaceDecl {
  readonly name: string;
  readonly doc: readonly string[];
  readonly properties: PropertyDecl[];
  /** The value type of an index signature (`[key: string]: T`), when unknown fields are kept. */
  readonly indexSignature: string | undefined;
}

const schemaTypes = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `'foo-bar'` for a key that is not an identifier, `foo` otherwise. */
export function propertyKey(name: string): string {
  return identifier.test(name) ? name : quote(name);
}

/** A single-quoted TypeScript string literal. */
export function quote(value: string): string {
  return `'${value
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')}'`;
}

/** `foo-bar` / `foo_bar` / `fooBar` → `FooBar`: a name part for a nested type. */
export function pascalCase(name: string): string {
  const parts = name.split(/[^A-Za-z0-9]+/).filter((part) => part !== '');
  const out = parts.map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
  return out === '' ? 'Field' : out;
}

/** Splits a description into TSDoc lines, keeping it from closing the comment. */
export function docLines(text: string | undefined): string[] {
  if (text === undefined) return [];
  const lines = text
    .replace(/\r\n?/g, '\n')
    .replace(/\*\//g, '*\\/')
    .split('\n')
    .map((line) => line.trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function literal(value: JsonValue): string {
  if (typeof value === 'string') return quote(value);
  return JSON.stringify(value);
}

/**
 * Turns OpenAPI v3 schemas of a CRD version into TypeScript interfaces. Objects with
 * `properties` become named interfaces (`MydemoSpec`, `MydemoSpecPortsItem`, ...), in the
 * order they are met; names are unique within one emitter.
 */
export class TypeEmitter {
  /** Every interface emitted so far, in order. */
  readonly interfaces: InterfaceDecl[] = [];
  readonly #reader: Reader;
  readonly #taken: Set<string>;
  readonly #root: { readonly depth: number; readonly owner: string } | undefined;

  /**
   * @param reader reports errors with the schema's file and path.
   * @param reserved names the interfaces must not take (the kind, imports, ...).
   * @param root where the top-level schema is (its path length) and whose it is (`a Widget
   *   (\`example.com/v1\`)`), to document nested interfaces by their field path.
   */
  constructor(
    reader: Reader,
    reserved: Iterable<string>,
    root?: { readonly depth: number; readonly owner: string },
  ) {
    this.#reader = reader;
    this.#taken = new Set(reserved);
    this.#root = root;
  }

  /** `spec.parts[*].subParts`: the field path of a schema path below the root. */
  fieldPath(path: readonly PathSegment[]): string {
    const segments = path.slice(this.#root?.depth ?? 0);
    let out = '';
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i];
      if (segment === 'properties' && i + 1 < segments.length) {
        const name = String(segments[++i]);
        out += /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)
          ? `${out === '' ? '' : '.'}${name}`
          : `[${JSON.stringify(name)}]`;
      } else if (segment === 'items' || segment === 'additionalProperties') {
        out += '[*]';
      }
    }
    return out;
  }

  /** Claims a unique interface name starting with `wanted`. */
  claimName(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.#taken.has(name); n++) name = `${wanted}${n}`;
    this.#taken.add(name);
    return name;
  }

  /** TSDoc lines for a schema: its description, `@defaultValue`, and format hints. */
  docOf(schema: JsonObject): string[] {
    const lines = docLines(typeof schema.description === 'string' ? schema.description : undefined);
    const extra: string[] = [];
    if (typeof schema.format === 'string' && schema.format !== '') {
      extra.push(`Format: \`${schema.format.replace(/`/g, "'")}\`.`);
    }
    if (schema.default !== undefined) {
      const value = JSON.stringify(schema.default).replace(/\*\//g, '*\\/');
      extra.push(`@defaultValue \`${value.replace(/`/g, "'")}\``);
    }
    if (extra.length > 0 && lines.length > 0) lines.push('');
    return [...lines, ...extra];
  }

  #interfaceDoc(schema: JsonObject, path: readonly PathSegment[]): string[] {
    const doc = this.docOf(schema);
    if (!this.#root) return doc;
    const where = `The \`${this.fieldPath(path)}\` field of ${this.#root.owner}.`;
    return doc.length === 0 ? [where] : [...doc, '', where];
  }

  /**
   * Checks a schema node and the keys this generator reads from it.
   *
   * @throws {CodegenError} naming the path of the first problem.
   */
  check(schema: JsonValue | undefined, path: readonly PathSegment[]): JsonObject {
    if (!isObject(schema)) {
      throw this.#reader.error(path, `expected a schema (a mapping), got ${describe(schema)}`);
    }
    if (schema.$ref !== undefined) {
      throw this.#reader.error([...path, '$ref'], '"$ref" is not allowed in a CRD schema');
    }
    const type = schema.type;
    if (type !== undefined && type !== null) {
      if (typeof type !== 'string') {
        throw this.#reader.error([...path, 'type'], `expected a type name, got ${describe(type)}`);
      }
      if (!schemaTypes.has(type)) {
        throw this.#reader.error(
          [...path, 'type'],
          `unknown type ${JSON.stringify(type)} (expected one of ${[...schemaTypes].join(', ')})`,
        );
      }
    }
    for (const key of [
      'nullable',
      'x-kubernetes-int-or-string',
      'x-kubernetes-preserve-unknown-fields',
      'x-kubernetes-embedded-resource',
    ]) {
      const value = schema[key];
      if (value !== undefined && typeof value !== 'boolean') {
        throw this.#reader.error([...path, key], `expected true or false, got ${describe(value)}`);
      }
    }
    if (schema.description !== undefined && typeof schema.description !== 'string') {
      throw this.#reader.error(
        [...path, 'description'],
        `expected a string, got ${describe(schema.description)}`,
      );
    }
    if (schema.properties !== undefined && !isObject(schema.properties)) {
      throw this.#reader.error(
        [...path, 'properties'],
        `expected a mapping of property schemas, got ${describe(schema.properties)}`,
      );
    }
    if (schema.required !== undefined) {
      const required = schema.required;
      if (!Array.isArray(required)) {
        throw this.#reader.error(
          [...path, 'required'],
          `expected a list of property names, got ${describe(required)}`,
        );
      }
      required.forEach((name, i) => {
        if (typeof name !== 'string') {
          throw this.#reader.error(
            [...path, 'required', i],
            `expected a property name, got ${describe(name)}`,
          );
        }
      });
    }
    if (Array.isArray(schema.items)) {
      throw this.#reader.error(
        [...path, 'items'],
        '"items" must be one schema (a mapping); tuples are not allowed in a CRD schema',
      );
    }
    const additional = schema.additionalProperties;
    if (additional !== undefined && typeof additional !== 'boolean' && !isObject(additional)) {
      throw this.#reader.error(
        [...path, 'additionalProperties'],
        `expected a schema or true/false, got ${describe(additional)}`,
      );
    }
    if (schema.enum !== undefined && !Array.isArray(schema.enum)) {
      throw this.#reader.error(
        [...path, 'enum'],
        `expected a list of values, got ${describe(schema.enum)}`,
      );
    }
    return schema;
  }

  #enumType(schema: JsonObject, path: readonly PathSegment[], type: string | undefined): string {
    const values = schema.enum as JsonValue[];
    const literals: string[] = [];
    values.forEach((value, i) => {
      let ok: boolean;
      if (value === null) ok = schema.nullable === true;
      else if (type === 'string') ok = typeof value === 'string';
      else if (type === 'integer') ok = typeof value === 'number' && Number.isInteger(value);
      else if (type === 'number') ok = typeof value === 'number';
      else if (type === 'boolean') ok = typeof value === 'boolean';
      else
        ok = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
      if (!ok) {
        throw this.#reader.error(
          [...path, 'enum', i],
          `${describe(value)} is not a valid ${type ?? 'enum'} value`,
        );
      }
      const text = literal(value);
      if (!literals.includes(text)) literals.push(text);
    });
    if (literals.length === 0) return 'never';
    return literals.join(' | ');
  }

  /**
   * The TypeScript type of `schema` (at `path` in the document). Objects with properties
   * become interfaces named `nameHint` (made unique).
   */
  typeOf(
    schemaValue: JsonValue | undefined,
    path: readonly PathSegment[],
    nameHint: string,
  ): string {
    const schema = this.check(schemaValue, path);
    const type = typeof schema.type === 'string' ? schema.type : undefined;
    const nullable = schema.nullable === true;
    const withNull = (t: string): string => (nullable ? `${t} | null` : t);

    if (schema['x-kubernetes-int-or-string'] === true) return withNull('number | string');
    if (Array.isArray(schema.enum) && type !== 'object' && type !== 'array') {
      const union = this.#enumType(schema, path, type);
      return nullable && !union.split(' | ').includes('null') ? `${union} | null` : union;
    }
    switch (type) {
      case 'string':
        return withNull('string');
      case 'integer':
      case 'number':
        return withNull('number');
      case 'boolean':
        return withNull('boolean');
      case 'array': {
        if (schema.items === undefined || schema.items === null) return withNull('unknown[]');
        const item = this.typeOf(schema.items, [...path, 'items'], `${nameHint}Item`);
        return withNull(/[|&]/.test(item) ? `(${item})[]` : `${item}[]`);
      }
      case 'object':
        return withNull(this.#objectType(schema, path, nameHint));
      default:
        // No type: allowed with x-kubernetes-preserve-unknown-fields (any JSON value).
        if (isObject(schema.properties) && Object.keys(schema.properties).length > 0) {
          return withNull(this.#objectType(schema, path, nameHint));
        }
        return 'unknown';
    }
  }

  #objectType(schema: JsonObject, path: readonly PathSegment[], nameHint: string): string {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const names = Object.keys(properties);
    const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
    const embedded = schema['x-kubernetes-embedded-resource'] === true;
    const additional = schema.additionalProperties;
    let valueType: string | undefined;
    if (isObject(additional)) {
      valueType = this.typeOf(additional, [...path, 'additionalProperties'], `${nameHint}Value`);
    } else if (additional === true || preserve) {
      valueType = 'unknown';
    }
    if (names.length === 0 && !embedded) {
      return `Record<string, ${valueType ?? 'unknown'}>`;
    }
    return this.interfaceFor(schema, path, nameHint, {
      indexSignature: valueType === undefined ? undefined : 'unknown',
      embedded,
    });
  }

  /**
   * Emits the interface of an object schema and returns its name. `override` replaces the
   * types of some properties (the top-level `apiVersion`, `kind`, `metadata`).
   */
  interfaceFor(
    schema: JsonObject,
    path: readonly PathSegment[],
    nameHint: string,
    options: {
      indexSignature?: string | undefined;
      embedded?: boolean;
      override?: ReadonlyMap<string, { type: string; doc: string[]; required?: boolean }>;
      name?: string;
      doc?: string[];
    } = {},
  ): string {
    const name = options.name ?? this.claimName(nameHint);
    const decl: InterfaceDecl = {
      name,
      doc: options.doc ?? this.#interfaceDoc(schema, path),
      properties: [],
      indexSignature: options.indexSignature,
    };
    this.interfaces.push(decl);
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(
      Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [],
    );
    const seen = new Set<string>();
    const add = (prop: PropertyDecl): void => {
      seen.add(prop.name);
      decl.properties.push(prop);
    };
    for (const [propName, override] of options.override ?? []) {
      add({
        name: propName,
        required: override.required ?? false,
        type: override.type,
        doc: override.doc,
      });
    }
    if (options.embedded) {
      // An embedded resource always carries type and object metadata.
      for (const [prop, type, doc] of [
        ['apiVersion', 'string', "The embedded object's API version."],
        ['kind', 'string', "The embedded object's kind."],
        ['metadata', 'ObjectMeta', "The embedded object's metadata."],
      ] as const) {
        if (Object.hasOwn(properties, prop)) continue;
        add({ name: prop, required: false, type, doc: [doc] });
      }
    }
    for (const [propName, propSchema] of Object.entries(properties)) {
      const propPath = [...path, 'properties', propName];
      if (seen.has(propName)) {
        // Overridden (apiVersion, kind, metadata): still validate what the schema says.
        this.check(propSchema, propPath);
        continue;
      }
      if (options.embedded && propName === 'metadata') {
        this.check(propSchema, propPath);
        add({
          name: propName,
          required: required.has(propName),
          type: 'ObjectMeta',
          doc: this.docOf(propSchema as JsonObject),
        });
        continue;
      }
      const type = this.typeOf(propSchema, propPath, `${name}${pascalCase(propName)}`);
      add({
        name: propName,
        required: required.has(propName),
        type,
        doc: this.docOf(propSchema as JsonObject),
      });
    }
    return name;
  }
}
