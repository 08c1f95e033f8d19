/**
 * At most `max` exports at once in one process: each holds up to two chunks of rows in memory and a ClickHouse
 * read, so their number bounds the gateway's memory (docs/api.md "Export"). A taken slot is given back once,
 * however its export ends.
 */
export function exportSlots(max: number) {
  let taken = 0;
  return {
    take(): (() => void) | null {
      if (taken >= max) return null;
      taken += 1;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        taken -= 1;
      };
    },
  };
}
