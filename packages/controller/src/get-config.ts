import { type Config, copyConfig, type LoadConfigOptions, loadConfig } from '@kubets/rest';

/** The request rate controller-runtime's `GetConfig` gives an operator: 20 requests/s. */
export const operatorQps = 20;
/** The burst controller-runtime's `GetConfig` gives an operator: 30 requests. */
export const operatorBurst = 30;

/**
 * Loads the REST config for a manager (controller-runtime's `config.GetConfig`): as
 * `@kubets/rest`'s `loadConfig` (`--kubeconfig`, `KUBECONFIG`, in-cluster, `~/.kube/config`),
 * with operator defaults of 20 requests/s and a burst of 30 where the loaded config sets
 * neither (`@kubets/rest` alone keeps client-go's 5/10).
 *
 * ```ts
 * const mgr = new Manager(getConfig(), { leaderElection: { namespace, name } });
 * ```
 *
 * @throws {ConfigError} as `loadConfig` does, when no configuration can be found or read.
 */
export function getConfig(options: LoadConfigOptions = {}): Config {
  return withOperatorRateLimits(loadConfig(options));
}

/**
 * A copy of `config` (printing redacted, as `copyConfig` makes it) with 20 requests/s and a
 * burst of 30 where it sets no `qps` or `burst`, or no `rateLimiter` of its own.
 */
export function withOperatorRateLimits(config: Config): Config {
  if (config.rateLimiter !== undefined) return copyConfig(config);
  return copyConfig(config, {
    qps: config.qps ?? operatorQps,
    burst: config.burst ?? operatorBurst,
  });
}
