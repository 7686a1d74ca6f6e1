// The logger interface lives in @kubets/apimachinery, shared by every package; re-exported
// here so `import { type Logger, silentLogger } from '@kubets/rest'` keeps working.
export { type LogFields, type Logger, silentLogger } from '@kubets/apimachinery';
export * from './client.js';
export * from './clock.js';
export * from './config.js';
export type {
  CredentialSourceOptions,
  ResolvedCredentials,
  TokenFileOptions,
} from './credentials.js';
export {
  CredentialSource,
  defaultTokenFileRecheckMs,
  impersonationHeaders,
  TokenFile,
} from './credentials.js';
export * from './errors.js';
export type { ListItemIdentity } from './item-identity.js';
export type { KubeConfigLike } from './kubeconfig.js';
export * from './list-decode.js';
export * from './ratelimit.js';
export * from './request.js';
export type { RequestRuntime } from './runtime.js';
export { isConnectionRefused, isRetryableConnectionError } from './transport.js';
export { redactedHref } from './url.js';
export * from './warnings.js';
export * from './watch.js';
