import { createRequire } from 'node:module';
import type { Logger } from '@kubets/apimachinery';
import {
  type AdmissionRegistration,
  admissionEndpoint,
  CONVERSION_PATH,
  type Converter,
  conversionEndpoint,
  type Defaulter,
  defaultingHandler,
  mutatingPath,
  rulesFor,
  type Validator,
  validatingHandler,
  validatingPath,
  type WebhookMetricsProvider,
  type WebhookResource,
  WebhookServer,
  type WebhookServerOptions,
} from '@kubets/webhook';
import type { HealthChecker } from './health-checks.js';

/** What {@link ManagerWebhooks} needs from its manager. */
interface WebhooksHost {
  readonly logger: Logger;
  /** The manager's prom-client registry, when it serves metrics. */
  readonly metricsRegistry: object | undefined;
  addReadyzCheck(name: string, check: HealthChecker): void;
}

/**
 * The webhooks of a {@link Manager} (controller-runtime's `GetWebhookServer` and what the
 * webhook builder registers): one `WebhookServer`, made on first use with the
 * manager's logger and metrics, started by `Manager.start` on every replica (leader or not)
 * before the caches, stopped with the manager; a readiness check `webhook` while it serves.
 */
export class ManagerWebhooks {
  readonly #host: WebhooksHost;
  #server: WebhookServer | undefined;
  readonly #registrations: AdmissionRegistration[] = [];
  readonly #converters: Converter[] = [];

  readonly #options: WebhookServerOptions = {};

  /** @internal Made by the manager. */
  constructor(host: WebhooksHost, server?: WebhookServer | WebhookServerOptions) {
    this.#host = host;
    if (server instanceof WebhookServer) this.#adopt(server);
    else if (server !== undefined) this.#options = server;
  }

  /**
   * The webhook server: the one given to the manager, else one made on first use from the
   * manager's options (controller-runtime's defaults: port 9443), logging to the manager's
   * logger and counting into its metrics registry.
   */
  get server(): WebhookServer {
    return (
      this.#server ??
      this.#adopt(
        new WebhookServer({
          logger: this.#host.logger,
          metricsProvider: this.#metricsProvider(),
          ...this.#options,
        }),
      )
    );
  }

  /** The admission webhooks registered by {@link webhookFor}, for `webhookConfigurations`. */
  get registrations(): readonly AdmissionRegistration[] {
    return this.#registrations;
  }

  /** The converters registered by {@link registerConversion}. */
  get converters(): readonly Converter[] {
    return this.#converters;
  }

  #adopt(server: WebhookServer): WebhookServer {
    this.#server = server;
    this.#host.addReadyzCheck('webhook', server.startedChecker());
    return server;
  }

  #metricsProvider(): WebhookMetricsProvider | undefined {
    const registry = this.#host.metricsRegistry;
    if (registry === undefined) return undefined;
    // The adapter loads prom-client, an optional peer the manager has already loaded for its metrics.
    const { PrometheusWebhookMetricsProvider } = createRequire(import.meta.url)(
      '@kubets/webhook/prometheus',
    ) as {
      PrometheusWebhookMetricsProvider: new (options: {
        registry: object;
      }) => WebhookMetricsProvider;
    };
    return new PrometheusWebhookMetricsProvider({ registry });
  }

  /** @internal Registers an admission webhook on the server and remembers it for the configurations. */
  addAdmission(
    registration: AdmissionRegistration,
    endpoint: Parameters<WebhookServer['register']>[1],
  ): void {
    this.server.register(registration.path, endpoint);
    this.#registrations.push(registration);
  }

  /** @internal Serves the conversion endpoint over every converter registered so far. */
  addConverter(converter: Converter): void {
    if (this.#converters.length === 0) {
      // One endpoint for every kind: it reads the converters when it answers.
      this.server.register(CONVERSION_PATH, {
        handle: (request) =>
          conversionEndpoint(this.#converters, { logger: this.#host.logger }).handle(request),
        refuse: (status, message) => conversionEndpoint([]).refuse(status, message),
      });
    }
    if (this.#converters.some((c) => c.group === converter.group && c.kind === converter.kind)) {
      throw new Error(
        `a converter for ${converter.kind}.${converter.group} was already registered`,
      );
    }
    this.#converters.push(converter);
  }

  /**
   * @internal Starts the server when there is one (made or given); resolves once it listens
   * with `stopped`, which settles when it has stopped (`onFailure` hears of a later failure).
   */
  async start(
    signal: AbortSignal,
    onFailure: (error: unknown) => void,
  ): Promise<{ readonly stopped: Promise<void> } | undefined> {
    const server = this.#server;
    if (server === undefined) return undefined;
    const running = server.start(signal);
    await Promise.race([server.listening(), running]);
    this.#host.logger.info('Webhook server started', { paths: server.paths });
    const stopped = running.catch((error: unknown) => {
      this.#host.logger.error('Webhook server failed; stopping the manager', { error });
      onFailure(error);
    });
    return { stopped };
  }
}

/** Options of one admission webhook of {@link webhookFor}. */
export interface WebhookForOptions {
  /** The webhook's name (default `m<kind>.<group>` / `v<kind>.<group>` as kubebuilder names them). */
  name?: string | undefined;
  /** The path (default controller-runtime's `/mutate-…` / `/validate-…`). */
  path?: string | undefined;
  /** What the API server does when the call fails (default `Fail`). */
  failurePolicy?: 'Fail' | 'Ignore' | undefined;
  /** Seconds the API server waits. */
  timeoutSeconds?: number | undefined;
  /** The operations it is called for (default CREATE and UPDATE; a validator's default adds DELETE when it validates deletes). */
  operations?: readonly ('CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT')[] | undefined;
}

/** What {@link webhookFor} needs: a manager (or anything with its `webhooks`). */
export interface WebhookHost {
  /** The manager's webhooks. */
  readonly webhooks: ManagerWebhooks;
}

/**
 * The admission webhooks of one resource (controller-runtime's `WebhookBuilder`): a
 * defaulter and a validator, registered on the manager's webhook server by {@link complete}.
 */
export class WebhookBuilder<T> {
  readonly #host: WebhookHost;
  readonly #resource: WebhookResource;
  #defaulter: { defaulter: Defaulter<T>; options: WebhookForOptions } | undefined;
  #validator: { validator: Validator<T>; options: WebhookForOptions } | undefined;

  /** @internal Made by {@link webhookFor}. */
  constructor(host: WebhookHost, resource: WebhookResource) {
    this.#host = host;
    this.#resource = resource;
  }

  /** Serves `defaulter` as a mutating webhook. */
  withDefaulter(defaulter: Defaulter<T>, options: WebhookForOptions = {}): this {
    this.#defaulter = { defaulter, options };
    return this;
  }

  /** Serves `validator` as a validating webhook. */
  withValidator(validator: Validator<T>, options: WebhookForOptions = {}): this {
    this.#validator = { validator, options };
    return this;
  }

  /** Registers them; returns their registrations. Throws when neither was given. */
  complete(): AdmissionRegistration[] {
    const resource = this.#resource;
    if (this.#defaulter === undefined && this.#validator === undefined) {
      throw new Error(
        `webhookFor(${resource.kind}.${resource.group}) needs withDefaulter or withValidator before complete()`,
      );
    }
    const kind = resource.kind.toLowerCase();
    const made: AdmissionRegistration[] = [];
    if (this.#defaulter !== undefined) {
      const { defaulter, options } = this.#defaulter;
      const registration = registrationOf(
        'mutating',
        `m${kind}.${resource.group}`,
        mutatingPath(resource),
        resource,
        options,
        ['CREATE', 'UPDATE'],
      );
      this.#host.webhooks.addAdmission(
        registration,
        admissionEndpoint(defaultingHandler(defaulter), { path: registration.path }),
      );
      made.push(registration);
    }
    if (this.#validator !== undefined) {
      const { validator, options } = this.#validator;
      const operations: ('CREATE' | 'UPDATE' | 'DELETE')[] = validator.validateDelete
        ? ['CREATE', 'UPDATE', 'DELETE']
        : ['CREATE', 'UPDATE'];
      const registration = registrationOf(
        'validating',
        `v${kind}.${resource.group}`,
        validatingPath(resource),
        resource,
        options,
        operations,
      );
      this.#host.webhooks.addAdmission(
        registration,
        admissionEndpoint(validatingHandler(validator), { path: registration.path }),
      );
      made.push(registration);
    }
    return made;
  }
}

function registrationOf(
  type: 'mutating' | 'validating',
  name: string,
  path: string,
  resource: WebhookResource,
  options: WebhookForOptions,
  operations: readonly ('CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT')[],
): AdmissionRegistration {
  return {
    type,
    name: options.name ?? name,
    path: options.path ?? path,
    rules: rulesFor(resource, options.operations ?? operations),
    failurePolicy: options.failurePolicy ?? 'Fail',
    ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
  };
}

/**
 * The admission webhooks of `resource` on `manager` (controller-runtime's
 * `NewWebhookManagedBy(mgr, obj)`): `webhookFor(mgr, websites).withDefaulter(d).withValidator(v).complete()`.
 * `resource` is a `ResourceDescriptor` (its object type is the callbacks') or any group,
 * version, kind and plural resource.
 */
export function webhookFor<T>(
  manager: WebhookHost,
  resource: WebhookResource & { readonly __types?: { readonly object: T } },
): WebhookBuilder<T> {
  for (const field of ['version', 'kind', 'resource'] as const) {
    if (typeof resource?.[field] !== 'string' || resource[field] === '') {
      throw new TypeError(`webhookFor needs a resource with a ${field}`);
    }
  }
  return new WebhookBuilder<T>(manager, resource);
}

/**
 * Serves `converter` on the manager's conversion endpoint (`/convert`, controller-runtime's
 * path), beside the converters of other kinds. Throws when its kind already has one.
 */
export function registerConversion(manager: WebhookHost, converter: Converter): void {
  manager.webhooks.addConverter(converter);
}
