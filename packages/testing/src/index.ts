export {
  type ApiServerFaults,
  type ApiServerOptions,
  type ApiServerTls,
  type FaultMatcher,
  type FaultRequest,
  type InMemoryApiServer,
  type PodLogContainerOptions,
  type PodLogs,
  type PodLogWriteOptions,
  type RespondWithOptions,
  startApiServer,
  type WatchLineFault,
} from './apiserver/index.js';
export {
  defaultEnvtestAssetsDir,
  type EnvtestBinaries,
  type EnvtestBinary,
  type EnvtestBinaryName,
  type EnvtestBinarySource,
  type FindEnvtestBinariesOptions,
  findEnvtestBinaries,
} from './binaries.js';
export {
  type Envtest,
  type EnvtestFlags,
  type EnvtestOptions,
  type EnvtestTls,
  type RestartApiServerOptions,
  startEnvtest,
} from './envtest.js';
export {
  EnvtestError,
  type EnvtestErrorCode,
  type EnvtestErrorOptions,
  isEnvtestError,
} from './errors.js';
export { type PrintedForm, printedForms } from './printed.js';
