import type { AuditEventRecord } from '@audit/shared/contract';
import { matchesEndpoint, type EndpointFilters, type WebhookSecret } from '@audit/shared/webhooks';

/** An active endpoint as the dispatcher needs it, secrets opened (as signing keys: `signingKey`). */
export interface ActiveEndpoint extends EndpointFilters {
  id: string;
  tenantId: string;
  url: string;
  secret: WebhookSecret;
  /** The secret a rotation replaced, and when it stops signing (epoch ms), while its overlap may run. */
  previous: { secret: WebhookSecret; expiresAt: number } | null;
  /** The endpoint's change count (docs/webhooks.md "Delivery"). */
  version: number;
  /** Attempts a second at most, across every dispatcher process, or null (docs/webhooks.md "Rate limit"). */
  ratePerSecond: number | null;
  createdAt: number;
}

/** What of an event decides which endpoints it goes to. */
export type MatchedEvent = Pick<AuditEventRecord, 'tenant_id' | 'action' | 'patient_id' | 'ingested_at'>;

/** Active endpoints by id and by tenant; built whole on every reload, changed in place by removals. */
export class EndpointIndex {
  private readonly byId = new Map<string, ActiveEndpoint>();
  private readonly byTenant = new Map<string, ActiveEndpoint[]>();

  constructor(endpoints: readonly ActiveEndpoint[] = []) {
    for (const e of endpoints) {
      this.byId.set(e.id, e);
      const list = this.byTenant.get(e.tenantId) ?? [];
      list.push(e);
      this.byTenant.set(e.tenantId, list);
    }
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: string): ActiveEndpoint | undefined {
    return this.byId.get(id);
  }

  /**
   * The tenant's endpoints whose filters match the event (its action and its patient), among those it was written
   * after (spec: "fires whenever an audit event is written"). `follows(id)` says the endpoint's own creation event
   * was read before this event in the tenant's partition: the order is then exact. Otherwise (an endpoint created
   * before this process started reading) the clocks decide, so a dispatcher catching up never pushes older events
   * to a newer endpoint.
   */
  matching(event: MatchedEvent, follows: (id: string) => boolean): ActiveEndpoint[] {
    return (this.byTenant.get(event.tenant_id) ?? []).filter(
      (e) => (follows(e.id) || e.createdAt <= event.ingested_at) && matchesEndpoint(e, event),
    );
  }

  add(endpoint: ActiveEndpoint): void {
    this.remove(endpoint.id);
    this.byId.set(endpoint.id, endpoint);
    this.byTenant.set(endpoint.tenantId, [...(this.byTenant.get(endpoint.tenantId) ?? []), endpoint]);
  }

  remove(id: string): void {
    const e = this.byId.get(id);
    if (!e) return;
    this.byId.delete(id);
    const rest = (this.byTenant.get(e.tenantId) ?? []).filter((x) => x.id !== id);
    if (rest.length > 0) this.byTenant.set(e.tenantId, rest);
    else this.byTenant.delete(e.tenantId);
  }
}
