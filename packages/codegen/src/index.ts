export {
  type CrdModel,
  type CrdVersion,
  type JsonObject,
  type JsonValue,
  type ParsedCrd,
  parseCrds,
  type Reader,
} from './crd.js';
export {
  CodegenError,
  CodegenSyntaxError,
  type ErrorLocation,
  formatPath,
  isCodegenError,
  type PathSegment,
} from './errors.js';
export { biomeFormatter, type Formatter, FormatterError, findBiome } from './format.js';
export {
  type CrdSource,
  compareFileContents,
  compareWithDirectory,
  type Difference,
  type GenerateOptions,
  generate,
  generatedFilesIn,
  generatedMarker,
  generateFromCrd,
  writeFiles,
} from './generate.js';
export {
  compareVersions,
  type ImportExtension,
  type KindNames,
  kindNames,
  type RenderOptions,
  renderFiles,
  resourceMethodName,
} from './render.js';
export { type CliIO, runCli, usage } from './run.js';
