/**
 * How much data the heaviest end-to-end tests make (docs/testing.md "Volume"). The integration tier runs them at
 * `full`, the sizes their issues asked for. The tiers that run the same files again on another engine (chdb, the
 * cluster, the containers) set AUDIT_TEST_VOLUME=reduced: there they show that the engine keeps the same guarantees,
 * which a fifth of the data shows as well, and at full size those repeats took most of a run's time.
 */
const setting = process.env.AUDIT_TEST_VOLUME ?? 'full';
if (setting !== 'full' && setting !== 'reduced') {
  throw new Error(`AUDIT_TEST_VOLUME is '${setting}': it is 'full' (the default) or 'reduced'`);
}

/** The full figure, or the reduced one where AUDIT_TEST_VOLUME=reduced. */
export const byVolume = <T>(full: T, reduced: T): T => (setting === 'reduced' ? reduced : full);
