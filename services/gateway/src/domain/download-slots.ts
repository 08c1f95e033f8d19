/** How many downloads may run at once, per API key, per tenant and in the whole process. */
export interface DownloadLimits {
  perKey: number;
  perTenant: number;
  perProcess: number;
}

/**
 * The downloads a gateway process serves at once (docs/exports.md "Downloads"): a download takes a slot of its key,
 * of its tenant and of the process before its file is opened, and gives them back when its answer ends, however it
 * ends. A download that would exceed any of the three is refused: one key or one tenant cannot take every slot.
 */
export function downloadSlots(limits: DownloadLimits) {
  const byKey = new Map<string, number>();
  const byTenant = new Map<string, number>();
  let running = 0;
  const add = (counts: Map<string, number>, id: string, by: number) => {
    const n = (counts.get(id) ?? 0) + by;
    if (n === 0) counts.delete(id);
    else counts.set(id, n);
  };
  return {
    /** The slots, with the function that gives them back (once); null when a limit is reached. */
    take(key: string, tenant: string): (() => void) | null {
      if (
        running >= limits.perProcess ||
        (byKey.get(key) ?? 0) >= limits.perKey ||
        (byTenant.get(tenant) ?? 0) >= limits.perTenant
      )
        return null;
      running += 1;
      add(byKey, key, 1);
      add(byTenant, tenant, 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        running -= 1;
        add(byKey, key, -1);
        add(byTenant, tenant, -1);
      };
    },
    running: () => running,
  };
}

export type DownloadSlots = ReturnType<typeof downloadSlots>;

/** Whether a download that sent `sentInWindow` bytes in the last window sent less than the least rate allows. */
export const tooSlow = (sentInWindow: number, windowMs: number, minBytesPerS: number): boolean =>
  sentInWindow < (minBytesPerS * windowMs) / 1000;
