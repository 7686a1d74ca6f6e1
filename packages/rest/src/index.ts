// The logger interface lives in @kubets/apimachinery, shared by every package; re-exported
// here so `import { type Logger, silentLogger } from '@kubets/rest'` keeps working.
export { type LogFields, type Logger, silentLogger } from '@kubets/apimachinery';
export { RESTClient, type RESTClientOptions, restClientFor } from './client.js';
export {
  type ConfigSource,
  configFromKubeconfig,
  configSource,
  type FromKubeconfigOptions,
  type KubeconfigLoadingOptions,
  kubeconfigAuthProvider,
  type LoadConfigOptions,
  loadConfig,
  loadKubeconfig,
} from './clientcmd.js';
export type {
  Kubeconfig,
  KubeconfigAuthInfo,
  KubeconfigAuthProviderConfig,
  KubeconfigCluster,
  KubeconfigContext,
  KubeconfigExecConfig,
  KubeconfigExecEnvVar,
  KubeconfigNamedAuthInfo,
  KubeconfigNamedCluster,
  KubeconfigNamedContext,
  KubeconfigNamedExtension,
  KubeconfigPreferences,
} from './clientcmd-api.js';
export {
  type AuthProvider,
  type Config,
  copyConfig,
  defaultServiceAccountDir,
  defaultUserAgent,
  type ImpersonationConfig,
  type InClusterConfigOptions,
  inClusterConfig,
  type PemData,
  type RequestCredentials,
  type RequestResult,
  type RequestResultHandler,
  redactConfig,
  redactTLSConfig,
  type TLSClientConfig,
} from './config.js';
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
export {
  ConfigError,
  type ConfigErrorLocation,
  CredentialsError,
  InvalidRequestError,
  isConfigError,
  isCredentialsError,
  isInvalidRequestError,
  isResponseDecodeError,
  isTransportError,
  ResponseDecodeError,
  TransportError,
} from './errors.js';
export type { ListItemIdentity } from './item-identity.js';
export { parseKubeconfig } from './kubeconfig.js';
export {
  decodeListStream,
  defaultMaxListItemBytes,
  type ListDecodeContext,
  type ListDecodeOptions,
  ListStreamDecoder,
} from './list-decode.js';
export {
  defaultBurst,
  defaultQPS,
  type RequestRateLimiter,
  rateLimiterFor,
  type TokenBucketOptions,
  TokenBucketRateLimiter,
} from './ratelimit.js';
export {
  type ParamValue,
  PatchType,
  type RawResponse,
  Request,
  type RequestBody,
  type WatchRequestOptions,
} from './request.js';
export type { RequestRuntime } from './runtime.js';
export { isConnectionRefused, isRetryableConnectionError } from './transport.js';
export { redactedHref } from './url.js';
export {
  deduplicateWarnings,
  parseWarningHeaders,
  type Warning,
  type WarningHandler,
  warningToConsole,
} from './warnings.js';
export {
  type DecodeWatchEventsOptions,
  decodeWatchEvents,
  defaultMaxWatchEventBytes,
  isWatchStreamBroken,
  type RewriteWatchEventText,
  resolveMaxWatchEventBytes,
  type WatchConnection,
  type WatchEvent,
  type WatchEventTextRewrite,
  type WatchEventType,
  WatchStream,
  watchDecodeFailure,
  watchStreamBrokenEvent,
} from './watch.js';
