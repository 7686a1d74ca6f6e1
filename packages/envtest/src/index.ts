export type { EnvtestFlags } from './arguments.js';
export {
  defaultEnvtestAssetsDir,
  type EnvtestBinaries,
  type EnvtestBinary,
  type EnvtestBinaryName,
  type EnvtestBinarySource,
  type FindEnvtestBinariesOptions,
  findEnvtestBinaries,
} from './binaries.js';
export { type CertAndKey, type EnvtestCertificates, generateEnvtestCertificates } from './certs.js';
export {
  type Envtest,
  type EnvtestConfig,
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
export { type KubeconfigParams, renderKubeconfig } from './kubeconfig.js';
export {
  type ServiceAccountConfig,
  type ServiceAccountUser,
  type ServiceAccountUserEnv,
  type ServiceAccountUserOptions,
  serviceAccountUser,
} from './service-account.js';
export { createTempDir, type TempDir } from './temp-dir.js';
export type {
  EnvtestWebhook,
  EnvtestWebhookClientConfig,
  EnvtestWebhookConfiguration,
  EnvtestWebhookMetadata,
  EnvtestWebhookOptions,
  EnvtestWebhookService,
  EnvtestWebhookServing,
} from './webhook-install.js';
