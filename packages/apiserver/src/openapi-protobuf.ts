import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { bytesField, doubleField, messageField, varintField } from './protobuf-write.js';

/** The media type of an OpenAPI v2 document in protobuf (gnostic's `openapi.v2.Document`). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** gnostic's `Any`: a JSON value carried as YAML text (JSON is YAML). */
const anyOf = (field: number, value: JsonValue): Buffer =>
  messageField(field, bytesField(2, JSON.stringify(value)));

const named = (field: number, name: string, value: Buffer): Buffer =>
  messageField(field, bytesField(1, name), bytesField(2, value));

/** Schema fields that are strings, doubles or integers, by gnostic's field numbers. */
const STRINGS: Record<string, number> = {
  $ref: 1,
  format: 2,
  title: 3,
  description: 4,
  pattern: 13,
};
const DOUBLES: Record<string, number> = { multipleOf: 6, maximum: 7, minimum: 9 };
const INTEGERS: Record<string, number> = {
  maxLength: 11,
  minLength: 12,
  maxItems: 14,
  minItems: 15,
  maxProperties: 17,
  minProperties: 18,
};
const BOOLS: Record<string, number> = {
  exclusiveMaximum: 8,
  exclusiveMinimum: 10,
  uniqueItems: 16,
  readOnly: 27,
};

const schemas = (value: JsonValue): JsonObject[] =>
  (Array.isArray(value) ? value : [value]).filter(isObject);

/** One keyword of a JSON schema as the fields of gnostic's `openapi.v2.Schema` it fills. */
function keywordFields(key: string, value: JsonValue): Buffer[] {
  if (typeof value === 'string' && STRINGS[key]) return [bytesField(STRINGS[key], value)];
  if (typeof value === 'number' && DOUBLES[key]) return [doubleField(DOUBLES[key], value)];
  if (typeof value === 'number' && INTEGERS[key]) return [varintField(INTEGERS[key], value)];
  if (typeof value === 'boolean' && BOOLS[key]) return [varintField(BOOLS[key], value)];
  if (key.startsWith('x-')) return [messageField(31, bytesField(1, key), anyOf(2, value))];
  switch (key) {
    case 'default':
      return [anyOf(5, value)];
    case 'example':
      return [anyOf(30, value)];
    case 'required':
      return Array.isArray(value) ? value.map((name) => bytesField(19, String(name))) : [];
    case 'enum':
      return Array.isArray(value) ? value.map((v) => anyOf(20, v)) : [];
    case 'additionalProperties':
      if (typeof value === 'boolean') return [messageField(21, varintField(2, value))];
      return isObject(value) ? [messageField(21, bytesField(1, schemaMessage(value)))] : [];
    case 'type':
      return [
        messageField(
          22,
          ...(Array.isArray(value) ? value : [value]).map((t) => bytesField(1, String(t))),
        ),
      ];
    case 'items':
      return [
        messageField(23, ...schemas(value).map((item) => bytesField(1, schemaMessage(item)))),
      ];
    case 'allOf':
      return schemas(value).map((item) => bytesField(24, schemaMessage(item)));
    case 'properties':
      return isObject(value)
        ? [
            messageField(
              25,
              ...Object.entries(value)
                .filter((entry): entry is [string, JsonObject] => isObject(entry[1]))
                .map(([name, property]) => named(1, name, schemaMessage(property))),
            ),
          ]
        : [];
    default:
      // Keywords v2 has no field for (oneOf, anyOf, not, nullable) are left out.
      return [];
  }
}

/** One JSON schema as gnostic's `openapi.v2.Schema`. */
function schemaMessage(schema: JsonObject): Buffer {
  return Buffer.concat(Object.entries(schema).flatMap(([key, value]) => keywordFields(key, value)));
}

/**
 * An operation as gnostic's `openapi.v2.Operation`: its query parameters (`in`, `name`,
 * `type`) and its `x-` vendor extensions; the rest is left out.
 */
function operationMessage(operation: JsonObject): Buffer {
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : [])
    .filter(isObject)
    .filter((p) => p.in === 'query')
    .map((p) =>
      // ParametersItem.parameter → Parameter.non_body_parameter → query_parameter_sub_schema.
      messageField(
        8,
        messageField(
          1,
          messageField(
            2,
            messageField(
              3,
              bytesField(2, 'query'),
              bytesField(4, String(p.name ?? '')),
              bytesField(6, String(p.type ?? 'string')),
            ),
          ),
        ),
      ),
    );
  const extensions = Object.entries(operation)
    .filter(([key]) => key.startsWith('x-'))
    .map(([key, value]) => messageField(13, bytesField(1, key), anyOf(2, value)));
  return Buffer.concat([...parameters, ...extensions]);
}

/** The `paths` of a document as gnostic's `openapi.v2.Paths` (PATCH operations only). */
function pathsMessage(paths: JsonObject): Buffer {
  return messageField(
    8,
    ...Object.entries(paths)
      .filter((entry): entry is [string, JsonObject] => isObject(entry[1]))
      .map(([path, item]) =>
        named(
          2,
          path,
          isObject(item.patch) ? messageField(8, operationMessage(item.patch)) : Buffer.alloc(0),
        ),
      ),
  );
}

/**
 * An OpenAPI v2 document (swagger, info, the PATCH operations of its paths, definitions) as
 * gnostic's `openapi.v2.Document`, what client-go's `OpenAPISchema()` asks for and parses.
 */
export function openApiV2Protobuf(document: JsonObject): Buffer {
  const info = isObject(document.info) ? document.info : {};
  const definitions = isObject(document.definitions) ? document.definitions : {};
  return Buffer.concat([
    bytesField(1, String(document.swagger ?? '2.0')),
    messageField(
      2,
      bytesField(1, String(info.title ?? '')),
      bytesField(2, String(info.version ?? '')),
    ),
    ...(isObject(document.paths) ? [pathsMessage(document.paths)] : []),
    messageField(
      9,
      ...Object.entries(definitions)
        .filter((entry): entry is [string, JsonObject] => isObject(entry[1]))
        .map(([name, schema]) => named(1, name, schemaMessage(schema))),
    ),
  ]);
}
