import type { Logger, Status } from '@kubets/apimachinery';
import { messageOf } from './admission-response.js';
import type { WebhookEndpoint, WebhookReply, WebhookRequest } from './endpoint.js';

/** An object as a conversion webhook sees it: JSON with `apiVersion`, `kind` and `metadata`. */
export interface ConvertibleObject {
  /** `group/version`. */
  apiVersion?: string;
  /** The kind. */
  kind?: string;
  /** The object's metadata; a conversion keeps it. */
  metadata?: unknown;
  /** Everything else. */
  [field: string]: unknown;
}

/** `ConversionReview.request` (`apiextensions.k8s.io/v1`). */
export interface ConversionRequest {
  /** Identifies the request; the response carries it back. */
  uid: string;
  /** The version every object is converted to (`group/version`). */
  desiredAPIVersion: string;
  /** The objects to convert. */
  objects: ConvertibleObject[];
}

/** `ConversionReview.response`. */
export interface ConversionResponse {
  /** The request's uid. */
  uid: string;
  /** The converted objects, in the order of the request's (none on failure). */
  convertedObjects: ConvertibleObject[];
  /** `Success`, or `Failure` with the message. */
  result: Status;
}

/** The `ConversionReview` document. */
export interface ConversionReview {
  /** `apiextensions.k8s.io/v1` (or `v1beta1`, answered in it). */
  apiVersion: 'apiextensions.k8s.io/v1' | 'apiextensions.k8s.io/v1beta1';
  /** Always `ConversionReview`. */
  kind: 'ConversionReview';
  /** What is asked. */
  request?: ConversionRequest;
  /** The answer. */
  response?: ConversionResponse;
}

/** How one spoke version converts to and from the hub version. */
export interface SpokeConversion<Hub, Spoke> {
  /** The spoke object as the hub version. */
  toHub(spoke: Spoke): Hub | Promise<Hub>;
  /** The hub object as this spoke version. */
  fromHub(hub: Hub): Spoke | Promise<Spoke>;
}

/**
 * A kind's versions, converted hub-and-spoke (controller-runtime's `NewHubSpokeConverter`):
 * every spoke converts to and from the hub; spoke to spoke goes through the hub.
 */
export interface HubSpokeConversion<Hub> {
  /** The API group. */
  readonly group: string;
  /** The kind. */
  readonly kind: string;
  /** The hub version (usually the storage version). */
  readonly hub: string;
  /** Each spoke version's conversion. */
  // biome-ignore lint/suspicious/noExplicitAny: each spoke has its own type, checked where it is declared
  readonly spokes: Readonly<Record<string, SpokeConversion<Hub, any>>>;
}

/** A converter of one kind's objects between versions (controller-runtime's `conversion.Converter`). */
export interface Converter {
  /** The API group. */
  readonly group: string;
  /** The kind. */
  readonly kind: string;
  /** Every version it converts between, the hub first. */
  readonly versions: readonly string[];
  /** `object` converted to `version` (of the same group); throws when it cannot be. */
  convert(object: ConvertibleObject, version: string): Promise<ConvertibleObject>;
}

function splitApiVersion(apiVersion: unknown): { group: string; version: string } {
  if (typeof apiVersion !== 'string' || apiVersion === '') {
    throw new Error(`object has no apiVersion: ${JSON.stringify(apiVersion)}`);
  }
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A {@link Converter} from a hub-and-spoke declaration. Throws a TypeError naming the
 * problem when a spoke is the hub version or is not a `{ toHub, fromHub }` pair.
 */
export function hubSpokeConverter<Hub>(declaration: HubSpokeConversion<Hub>): Converter {
  const { group, kind, hub, spokes } = declaration;
  for (const [name, value] of Object.entries({ group, kind, hub })) {
    if (typeof value !== 'string' || (value === '' && name !== 'group')) {
      throw new TypeError(`hub spoke converter: ${name} must be a non-empty string`);
    }
  }
  const label = `${kind}.${group}`;
  for (const [version, spoke] of Object.entries(spokes)) {
    if (version === hub) {
      throw new TypeError(`hub spoke converter for ${label}: spoke ${version} is the hub version`);
    }
    if (
      !isRecord(spoke) ||
      typeof spoke.toHub !== 'function' ||
      typeof spoke.fromHub !== 'function'
    ) {
      throw new TypeError(
        `hub spoke converter for ${label}: spoke ${version} needs toHub and fromHub functions`,
      );
    }
  }
  const gv = (version: string) => (group === '' ? version : `${group}/${version}`);
  // The converted object keeps the source's metadata unless the conversion set its own, and
  // always names the version it is in: kube-apiserver checks both.
  const stamped = (
    converted: unknown,
    source: ConvertibleObject,
    version: string,
  ): ConvertibleObject => {
    if (!isRecord(converted)) {
      throw new TypeError(
        `conversion of ${label} to ${version} returned ${converted === null ? 'null' : typeof converted}, not an object`,
      );
    }
    return {
      ...converted,
      apiVersion: gv(version),
      kind,
      metadata: converted.metadata ?? source.metadata,
    };
  };
  return {
    group,
    kind,
    versions: [hub, ...Object.keys(spokes)],
    async convert(object, version) {
      const source = splitApiVersion(object.apiVersion);
      if (source.group !== group || object.kind !== kind) {
        throw new Error(
          `${object.kind}.${source.group} is not converted by the converter of ${label}`,
        );
      }
      if (source.version === version) {
        throw new Error(
          `conversion is not allowed between the same version ${gv(version)} of ${label}`,
        );
      }
      const from = source.version === hub ? undefined : spokes[source.version];
      const to = version === hub ? undefined : spokes[version];
      if ((source.version !== hub && from === undefined) || (version !== hub && to === undefined)) {
        throw new Error(
          `failed to convert ${gv(source.version)} to ${gv(version)} of ${label}: not convertible`,
        );
      }
      const hubObject =
        from === undefined
          ? (structuredClone(object) as Hub)
          : (stamped(await from.toHub(structuredClone(object)), object, hub) as Hub);
      if (to === undefined) return stamped(hubObject, object, hub);
      return stamped(await to.fromHub(hubObject), object, version);
    },
  };
}

/** Options of {@link conversionEndpoint}. */
export interface ConversionEndpointOptions {
  /** Where failed conversions are logged (default: silent). */
  logger?: Logger | undefined;
}

/**
 * The endpoint of a CRD conversion webhook over `converters` (controller-runtime's
 * `conversion.NewWebhookHandler`): converts every object of a `ConversionReview` to the
 * desired version; one failure fails the review with its message. A body that is not JSON or
 * has no request gets HTTP 400.
 */
export function conversionEndpoint(
  converters: readonly Converter[],
  options: ConversionEndpointOptions = {},
): WebhookEndpoint {
  const byGroupKind = new Map<string, Converter>();
  for (const converter of converters) {
    const key = `${converter.kind}.${converter.group}`;
    if (byGroupKind.has(key)) throw new TypeError(`two converters for ${key}`);
    byGroupKind.set(key, converter);
  }
  const { logger } = options;
  const refuse = (status: number, message: string): WebhookReply => {
    logger?.warn('conversion request refused', { code: status, message });
    return {
      status,
      body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: status, message },
    };
  };
  const convertAll = async (request: ConversionRequest): Promise<ConvertibleObject[]> => {
    if (!Array.isArray(request.objects)) throw new Error('request.objects must be an array');
    const desired = splitApiVersion(request.desiredAPIVersion);
    const converted: ConvertibleObject[] = [];
    for (const object of request.objects) {
      if (!isRecord(object)) throw new Error('every object to convert must be a JSON object');
      const source = splitApiVersion(object.apiVersion);
      if (source.group !== desired.group) {
        throw new Error(
          `${object.apiVersion} and ${request.desiredAPIVersion} do not belong to the same API group`,
        );
      }
      const converter = byGroupKind.get(`${String(object.kind)}.${source.group}`);
      if (converter === undefined) {
        throw new Error(`no converter for ${String(object.kind)}.${source.group}`);
      }
      converted.push(await converter.convert(object as ConvertibleObject, desired.version));
    }
    return converted;
  };
  return {
    refuse,
    async handle(request: WebhookRequest): Promise<WebhookReply> {
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(request.body ?? []).toString('utf8'));
      } catch (error) {
        return refuse(
          400,
          `unable to decode the conversion request: malformed JSON: ${messageOf(error)}`,
        );
      }
      // As controller-runtime, a review naming no kind is taken as one; another kind is not.
      if (!isRecord(parsed) || (parsed.kind !== undefined && parsed.kind !== 'ConversionReview')) {
        return refuse(400, 'the body is not a ConversionReview');
      }
      const apiVersion =
        parsed.apiVersion === 'apiextensions.k8s.io/v1beta1'
          ? parsed.apiVersion
          : 'apiextensions.k8s.io/v1';
      const conversionRequest = parsed.request;
      if (!isRecord(conversionRequest)) return refuse(400, 'the ConversionReview has no request');
      if (typeof conversionRequest.uid !== 'string' || conversionRequest.uid === '') {
        return refuse(400, 'the ConversionReview request has no uid');
      }
      let response: ConversionResponse;
      try {
        response = {
          uid: conversionRequest.uid,
          convertedObjects: await convertAll(conversionRequest as unknown as ConversionRequest),
          result: { status: 'Success' },
        };
      } catch (error) {
        logger?.error('conversion failed', {
          uid: conversionRequest.uid,
          message: messageOf(error),
        });
        response = {
          uid: conversionRequest.uid,
          convertedObjects: [],
          result: { status: 'Failure', message: messageOf(error) },
        };
      }
      const body: ConversionReview = { apiVersion, kind: 'ConversionReview', response };
      return { status: 200, body };
    },
  };
}
