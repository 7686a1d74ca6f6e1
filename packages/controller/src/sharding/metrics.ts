import type * as PromClient from 'prom-client';

/** What a ring's metrics say, as {@link ShardRing.stats} returns them. */
export interface ShardStats {
  /** Objects of the sharded resources in this member's cache, assigned to it. */
  assigned: number;
  /** Drains this member acknowledged (objects it let go of). */
  drains: number;
  /** Objects this replica's sharder moved (or assigned anew), by the member they went to. */
  moves: Readonly<Record<string, number>>;
  /** Live members as this replica's sharder last counted them; 0 when it does not lead. */
  ringMembers: number;
}

/** @internal The counters behind {@link ShardStats}, also published to Prometheus. */
export class ShardMetrics {
  drains = 0;
  ringMembers = 0;
  readonly moves = new Map<string, number>();
  assigned: () => number = () => 0;

  moved(to: string): void {
    this.moves.set(to, (this.moves.get(to) ?? 0) + 1);
  }

  stats(): ShardStats {
    return {
      assigned: this.assigned(),
      drains: this.drains,
      moves: Object.fromEntries(this.moves),
      ringMembers: this.ringMembers,
    };
  }

  /**
   * Registers the ring's series in `registry`, read from these counters on each scrape:
   * `controller_sharding_assigned_objects`, `controller_sharding_drains_total` (of this
   * member), `controller_sharding_moves_total` (by the sharder, per destination member) and
   * `controller_sharding_ring_members`.
   */
  register(
    prom: typeof PromClient,
    registry: PromClient.Registry,
    ring: string,
    member: string,
  ): void {
    const registers = [registry];
    const metrics = this;
    new prom.Gauge({
      name: 'controller_sharding_assigned_objects',
      help: 'Number of objects of sharded resources assigned to this member',
      labelNames: ['ring', 'member'] as const,
      registers,
      collect() {
        this.set({ ring, member }, metrics.assigned());
      },
    });
    new prom.Counter({
      name: 'controller_sharding_drains_total',
      help: 'Total number of drains this member acknowledged',
      labelNames: ['ring', 'member'] as const,
      registers,
      collect() {
        this.reset();
        this.inc({ ring, member }, metrics.drains);
      },
    });
    new prom.Counter({
      name: 'controller_sharding_moves_total',
      help: 'Total number of objects the sharder assigned to a member, per member',
      labelNames: ['ring', 'member'] as const,
      registers,
      collect() {
        this.reset();
        for (const [to, n] of metrics.moves) this.inc({ ring, member: to }, n);
      },
    });
    new prom.Gauge({
      name: 'controller_sharding_ring_members',
      help: 'Number of live members of the ring, as the sharder counts them',
      labelNames: ['ring'] as const,
      registers,
      collect() {
        this.set({ ring }, metrics.ringMembers);
      },
    });
  }
}
