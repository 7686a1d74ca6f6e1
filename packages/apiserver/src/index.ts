export type {
  ApiServerFaults,
  FaultMatcher,
  FaultRequest,
  RespondWithOptions,
  WatchLineFault,
} from './faults.js';
export type { PodLogContainerOptions, PodLogs, PodLogWriteOptions } from './podlogs.js';
export {
  type ApiServerOptions,
  type ApiServerTls,
  type InMemoryApiServer,
  startApiServer,
} from './server.js';
