import type { GroupVersionResource } from '@kubets/apimachinery';

/** Names in use (client-go's informer name registry): a name is unique per process. */
const registry = new Map<string, InformerName>();

/** A shared flag: true while an identity may publish metrics. */
interface Reservation {
  reserved: boolean;
}

const neverReserved: Reservation = Object.freeze({ reserved: false });

/**
 * An informer identity with a resource (client-go `cache.InformerNameAndResource`), handed
 * to informers and stores for their metrics. Metrics are published only while
 * {@link InformerNameAndResource.reserved} is true: the first registration of the resource
 * under a name that has not been released.
 */
export class InformerNameAndResource {
  /** The informer name (`''` for the zero identity, which publishes nothing). */
  readonly name: string;
  /** The resource the informer caches. */
  readonly groupVersionResource: GroupVersionResource;
  readonly #reservation: Reservation;

  /** @internal */
  constructor(name: string, gvr: GroupVersionResource, reservation: Reservation) {
    this.name = name;
    this.groupVersionResource = gvr;
    this.#reservation = reservation;
  }

  /**
   * True while metrics may be published under this identity: false for a duplicate
   * registration, after {@link InformerName.release}, and for an identity without a name.
   */
  reserved(): boolean {
    return this.#reservation.reserved;
  }
}

/** The zero identity (no name): informers and stores given it publish no metrics. */
export function anonymousInformerIdentity(
  gvr: GroupVersionResource = { group: '', version: '', resource: '' },
): InformerNameAndResource {
  return new InformerNameAndResource('', gvr, neverReserved);
}

/**
 * A named informer identity used for metrics (client-go `cache.InformerName`), created once
 * per component (e.g. per controller) with {@link newInformerName}. Each resource registered
 * with {@link InformerName.withResource} gets metrics the first time only.
 */
export class InformerName {
  /** The name, unique in the process while not released. */
  readonly name: string;
  readonly #own: Reservation = { reserved: true };
  #resources = new Map<string, Reservation>();

  /** @internal */
  constructor(name: string) {
    this.name = name;
  }

  /**
   * The identity of this name's informer of `gvr`. The first registration of a resource is
   * reserved (publishes metrics); a second one is not, and is logged by no one: check
   * {@link InformerNameAndResource.reserved}.
   */
  withResource(gvr: GroupVersionResource): InformerNameAndResource {
    if (!this.#own.reserved) return new InformerNameAndResource(this.name, gvr, neverReserved);
    const key = `${gvr.group}/${gvr.version}/${gvr.resource}`;
    if (this.#resources.has(key)) {
      return new InformerNameAndResource(this.name, gvr, { reserved: false });
    }
    const reservation: Reservation = { reserved: true };
    this.#resources.set(key, reservation);
    return new InformerNameAndResource(this.name, gvr, reservation);
  }

  /**
   * Gives the name up (e.g. at shutdown): every identity made from it stops publishing
   * metrics, and {@link newInformerName} may hand the name out again.
   */
  release(): void {
    for (const reservation of this.#resources.values()) reservation.reserved = false;
    this.#resources = new Map();
    this.#own.reserved = false;
    if (registry.get(this.name) === this) registry.delete(this.name);
  }
}

/**
 * Registers an informer name for metrics (client-go `cache.NewInformerName`).
 *
 * @throws {Error} when `name` is empty or already registered and not released.
 */
export function newInformerName(name: string): InformerName {
  if (name === '') throw new Error('informer name cannot be empty');
  if (registry.has(name))
    throw new Error(`informer name ${JSON.stringify(name)} is already registered`);
  const informerName = new InformerName(name);
  registry.set(name, informerName);
  return informerName;
}
