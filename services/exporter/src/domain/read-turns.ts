/** Gives a turn back; a second call does nothing. */
export type Release = () => void;

/**
 * Turns at the ClickHouse reads of the jobs one exporter runs (docs/exports.md "Fair share"): at most `capacity`
 * chunk reads at once, handed round the tenants that wait, one turn each in rotation, each tenant's own requests
 * in the order they came. A tenant that begins to wait joins the rotation's end, so it waits for at most one turn
 * of each tenant already waiting: with T tenants waiting, about T / capacity chunk reads.
 */
export function readTurns(capacity: number) {
  let held = 0;
  // Insertion order is the rotation: a tenant served goes to the end if it still waits.
  const waiting = new Map<string, Array<(release: Release) => void>>();

  const hand = () => {
    for (const [tenant, queue] of waiting) {
      if (held >= capacity) return;
      waiting.delete(tenant);
      const grant = queue.shift()!;
      if (queue.length > 0) waiting.set(tenant, queue);
      held++;
      let given = false;
      grant(() => {
        if (given) return;
        given = true;
        held--;
        hand();
      });
    }
  };

  return {
    /** Resolves with the tenant's next turn. */
    take(tenant: string): Promise<Release> {
      return new Promise((resolve) => {
        const queue = waiting.get(tenant);
        if (queue) queue.push(resolve);
        else waiting.set(tenant, [resolve]);
        hand();
      });
    },
    /** Turns held now, and requests waiting. */
    load(): { held: number; waiting: number } {
      let n = 0;
      for (const queue of waiting.values()) n += queue.length;
      return { held, waiting: n };
    },
  };
}

export type ReadTurns = ReturnType<typeof readTurns>;
