// A small client written against the types openapi-typescript generates from the served document
// (scripts/test-api-tools.sh puts them beside this file as openapi.ts). It must compile with `--strict`, and it
// runs against the gateway: node client.mjs <base URL> <key>.
import type { components, operations } from './openapi.js';

type AuditEvent = components['schemas']['AuditEvent'];
type ListQuery = NonNullable<operations['listEvents']['parameters']['query']>;
type Page = operations['listEvents']['responses'][200]['content']['application/json'];
type Endpoints = operations['listWebhooks']['responses'][200]['content']['application/json'];
type Disabled = operations['disableWebhook']['responses'][200]['content']['application/json'];

const [base, key] = process.argv.slice(2) as [string, string];
const headers = { authorization: `Bearer ${key}` };

async function call<T>(method: string, path: string, expected: number): Promise<T> {
  const res = await fetch(`${base}${path}`, { method, headers });
  if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (expected === 204 ? undefined : await res.json()) as T;
}

const query: ListQuery = { limit: 5, phi_involved: 'true' };
const params = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
const page = await call<Page>('GET', `/audit/events?${params}`, 200);
const first: AuditEvent | undefined = page.events[0];
if (!first || !first.phi_involved) throw new Error('no PHI event on the first page');
const again = await call<AuditEvent>('GET', `/audit/events/${first.event_id}`, 200);
if (again.event_id !== first.event_id) throw new Error('the lookup returned another event');
const { endpoints } = await call<Endpoints>('GET', '/audit/webhooks', 200);
const endpoint = endpoints[0];
if (!endpoint) throw new Error('no webhook endpoint');
// Idempotent: an endpoint disabled before is answered the same.
const disabled = await call<Disabled>('POST', `/audit/webhooks/${endpoint.id}/disable`, 200);
if (disabled.active) throw new Error('the endpoint is still active');
const next: string | null = page.page.next_cursor;
console.log(`typescript client: ${page.page.returned} events, next cursor ${next ? 'given' : 'none'}`);
