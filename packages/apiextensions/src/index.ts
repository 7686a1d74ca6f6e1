export {
  type CrdValidationOptions,
  crdInvalidMessage,
  unknownFormatErrors,
  validateCustomResourceDefinition,
} from './definition.js';
export type { FieldError } from './field-error.js';
export { isKnownFormat, matchesFormat } from './formats.js';
export { isObject, type JsonObject, type JsonValue } from './json.js';
export {
  additionalSchema,
  fieldsWithSchemas,
  goValue,
  itemsSchema,
  jsonType,
  properties,
  propertySchema,
  type Schema,
} from './schema.js';
export { validateCrdSchemas } from './structural.js';
export { validateCustomObject, validateValue } from './validate.js';
