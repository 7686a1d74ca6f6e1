export type { FieldError } from '@kubets/apiextensions';
export {
  type CustomObject,
  type CustomObjectOf,
  type CustomResource,
  type CustomResourceDeclaration,
  CustomResourceDefinitionError,
  type CustomResourceDescriptor,
  defineCustomResource,
  type PrinterColumn,
  pluralize,
  type ScaleSubresource,
  type Scope,
  type SubresourcesOf,
  type VersionDeclaration,
  type WithScale,
  type WithStatus,
} from './define.js';
export {
  atomicList,
  embeddedResource,
  intOrString,
  listMap,
  listSet,
  preserveUnknownFields,
  stringMap,
} from './idioms.js';
export { toOpenAPIV3 } from './openapi.js';
