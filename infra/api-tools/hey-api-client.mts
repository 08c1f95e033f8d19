// A small client written against the SDK and zod schemas @hey-api/openapi-ts generates from the served document
// (scripts/test-api-tools.sh puts them beside this file in gen/). It must compile with `--strict`, and it runs
// against the gateway, every request and response checked by the generated schemas: node client.mjs <base URL> <key>.
import { client } from './gen/client.gen.js';
import { disableWebhook, getEvent, listEvents, listWebhooks } from './gen/sdk.gen.js';
import { zAuditEvent } from './gen/zod.gen.js';

const [baseUrl, key] = process.argv.slice(2) as [string, string];
client.setConfig({ baseUrl, auth: () => key });
// Each call throws on an error answer or a failed check, and its data is then typed as present.
const strict = { throwOnError: true } as const;

const { data: page } = await listEvents({ ...strict, query: { limit: 5, phi_involved: 'true' } });
const first = page.events[0];
if (!first || !first.phi_involved) throw new Error('no PHI event on the first page');
const { data: again } = await getEvent({ ...strict, path: { event_id: first.event_id } });
if (again.event_id !== first.event_id) throw new Error('the lookup returned another event');
zAuditEvent.parse(again);
const { data: listed } = await listWebhooks(strict);
const endpoint = listed.endpoints[0];
if (!endpoint) throw new Error('no webhook endpoint');
// Idempotent: an endpoint disabled before is answered the same.
const { data: disabled } = await disableWebhook({ ...strict, path: { id: endpoint.id } });
if (disabled.active) throw new Error('the endpoint is still active');
console.log(
  `hey-api client: ${page.page.returned} events, next cursor ${page.page.next_cursor ? 'given' : 'none'}, ` +
    'every answer checked by its zod schema',
);
