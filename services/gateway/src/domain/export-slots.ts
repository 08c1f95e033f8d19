/**
 * At most `max` exports at once in one process, and at most half of them (at least one) for one tenant: each
 * holds up to two reads of rows in memory, so their number bounds the gateway's memory, and one tenant cannot take
 * every slot (docs/api.md "Exporting up to 10,000 events at once"). A taken slot is given back once, however its
 * export ends.
 */
export function exportSlots(max: number) {
  const perTenant = Math.max(1, Math.floor(max / 2));
  const byTenant = new Map<string, number>();
  let taken = 0;
  return {
    take(tenant: string): (() => void) | null {
      const mine = byTenant.get(tenant) ?? 0;
      if (taken >= max || mine >= perTenant) return null;
      taken += 1;
      byTenant.set(tenant, mine + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        taken -= 1;
        const left = byTenant.get(tenant)! - 1;
        if (left === 0) byTenant.delete(tenant);
        else byTenant.set(tenant, left);
      };
    },
  };
}
