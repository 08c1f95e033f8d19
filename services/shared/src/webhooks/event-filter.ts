/** Spec: each entry is a prefix of the action; an empty filter matches every action. */
export function matchesFilter(filter: readonly string[], action: string): boolean {
  return filter.length === 0 || filter.some((prefix) => action.startsWith(prefix));
}

/** An empty patient filter matches every event; otherwise the event must name one of its patients, exactly. */
export function matchesPatients(patients: readonly string[], patientId: string): boolean {
  return patients.length === 0 || patients.includes(patientId);
}

/** What an endpoint selects events by (docs/webhooks.md "Delivery", "Matching"). */
export interface EndpointFilters {
  /** Action prefixes: `event_filter`. */
  filter: readonly string[];
  /** Patient ids: `patient_filter`. */
  patients: readonly string[];
}

/**
 * Both filters hold. The live deliveries and the replays decide with this one rule, so a replay sends exactly what
 * the endpoint would have been sent.
 */
export function matchesEndpoint(
  endpoint: EndpointFilters,
  event: { action: string; patient_id: string },
): boolean {
  return matchesFilter(endpoint.filter, event.action) && matchesPatients(endpoint.patients, event.patient_id);
}

export const MAX_FILTER_ENTRIES = 50;
export const MAX_PATIENT_FILTER_ENTRIES = 50;
