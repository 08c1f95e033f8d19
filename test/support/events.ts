import { randomUUID } from 'node:crypto';

const ACTIONS = ['phi.read', 'phi.query', 'phi.export', 'phi.decrypt', 'admin.user.update'];

/** A valid ingest event with every field set to something distinctive. */
export function makeEvent(tenant: string, i: number, baseMs = Date.now() - 3_600_000) {
  const action = ACTIONS[i % ACTIONS.length]!;
  const phi = action.startsWith('phi.');
  return {
    event_id: randomUUID(),
    timestamp: new Date(baseMs + i).toISOString(),
    tenant_id: tenant,
    action,
    user_id: `user-${i % 97}`,
    user_role: i % 2 ? 'clinician' : 'admin',
    resource_type: i % 3 ? 'claim' : 'upload',
    resource_id: `res-${i}`,
    fields_accessed: phi ? ['dob', `field-${i % 7}`] : [],
    phi_involved: phi,
    source_ip: i % 2 ? `10.0.${i % 256}.${(i >> 8) % 256}` : '2001:db8::1',
    user_agent: `agent/${i} "quoted" 'single' \\ \\t ü\t🧾\r\n\0`,
    justification: i % 5 ? '' : `reason ${i}`,
    success: i % 11 !== 0,
    details: { seq: i, nested: { ok: true, text: `line\n${i}` } },
  };
}

export type TestEvent = ReturnType<typeof makeEvent>;

/** makeEvent's event made a read of one patient's PHI; `fields` say what else the test is about. */
export function patientEvent(
  tenant: string,
  i: number,
  baseMs: number,
  patientId: string,
  fields: Record<string, unknown> = {},
) {
  return {
    ...makeEvent(tenant, i, baseMs),
    action: 'phi.read',
    phi_involved: true,
    fields_accessed: ['dob'],
    patient_id: patientId,
    ...fields,
  };
}

/**
 * `count` events of the tenant from `from` on, in runs of 1 to 30 sharing one millisecond, so that ties meet
 * every boundary a reader may pick (pages, chunks); runs are `gapMs` apart at most.
 */
export function clusteredEvents(tenant: string, count: number, from: number, gapMs: number): TestEvent[] {
  const events: TestEvent[] = [];
  let ms = 0;
  while (events.length < count) {
    const run = 1 + ((events.length * 7919) % 30);
    for (let i = 0; i < run && events.length < count; i++) {
      events.push({ ...makeEvent(tenant, events.length), timestamp: new Date(from + ms).toISOString() });
    }
    ms += 1 + (events.length % 4) * gapMs;
  }
  return events;
}

export async function ingest(
  url: string,
  token: string,
  events: unknown[],
  contentType = 'application/json',
) {
  const body =
    contentType === 'application/x-ndjson'
      ? events.map((e) => JSON.stringify(e)).join('\n')
      : JSON.stringify(events);
  const res = await fetch(`${url}/internal/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
