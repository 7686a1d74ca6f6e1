export {
  type CrdModel,
  type CrdVersion,
  type JsonObject,
  type JsonValue,
  type ParsedCrd,
  parseCrds,
  type Reader,
} from './crd.js';
export * from './errors.js';
export * from './format.js';
export * from './generate.js';
export {
  compareVersions,
  type ImportExtension,
  type KindNames,
  kindNames,
  type RenderOptions,
  renderFiles,
  resourceMethodName,
} from './render.js';
export * from './run.js';
