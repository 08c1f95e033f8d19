import { matchesFilter } from '@audit/shared';

/** An active endpoint as the dispatcher needs it, secret opened. */
export interface ActiveEndpoint {
  id: string;
  tenantId: string;
  url: string;
  filter: readonly string[];
  secret: string;
  createdAt: number;
}

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
   * The tenant's endpoints whose filter matches the action. An event is for endpoints that existed when it was
   * written (spec: "fires whenever an audit event is written"), so one read late never reaches a newer endpoint.
   */
  matching(tenantId: string, action: string, writtenAt: number): ActiveEndpoint[] {
    return (this.byTenant.get(tenantId) ?? []).filter(
      (e) => e.createdAt <= writtenAt && matchesFilter(e.filter, action),
    );
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
