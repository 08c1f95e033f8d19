import { useCallback, useEffect, useState } from 'preact/hooks';
import { explain, type Api } from './api.js';
import { timeFromInput } from './filters.js';
import { showTime } from './time.js';

/** An endpoint as the list shows it (docs/webhooks.md). */
interface Endpoint {
  id: string;
  url: string;
  description: string;
  event_filter: string[];
  patient_filter: string[];
  active: boolean;
  consecutive_failures: number;
  last_delivery_at: string | null;
  previous_secret_expires_at: string | null;
}

interface Attempt {
  event_id: string;
  attempt: number;
  attempted_at: string;
  outcome: string;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  replay: boolean;
}

interface Replay {
  status: string;
  records_read: number;
  deliveries_queued: number;
  error: string | null;
}

const iso = (text: string) => text.replace('+00:00', 'Z');
// How often a running replay is looked at.
const POLL_MS = 1000;

/** The tenant's webhook endpoints; with `webhooks:write`, a test send, a secret's rotation and a replay each. */
export function WebhooksView({ api, canManage, utc }: { api: Api; canManage: boolean; utc: boolean }) {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    () =>
      api.get<{ endpoints: Endpoint[] }>('/audit/webhooks').then(
        (a) => setEndpoints(a.endpoints),
        (e) => setError(explain(e)),
      ),
    [api],
  );
  useEffect(() => void load(), [load]);
  if (error) return <p role="alert">{error}</p>;
  if (!endpoints) return <p role="status">Loading the webhook endpoints…</p>;
  if (endpoints.length === 0) return <p role="status">This tenant has no webhook endpoints.</p>;
  return (
    <ul class="endpoints">
      {endpoints.map((endpoint) => (
        <EndpointCard
          key={endpoint.id}
          api={api}
          endpoint={endpoint}
          canManage={canManage}
          utc={utc}
          onChange={load}
        />
      ))}
    </ul>
  );
}

interface CardProps {
  api: Api;
  endpoint: Endpoint;
  canManage: boolean;
  utc: boolean;
  onChange: () => void;
}

function EndpointCard({ api, endpoint, canManage, utc, onChange }: CardProps) {
  const base = `/audit/webhooks/${endpoint.id}`;
  const [note, setNote] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [attempts, setAttempts] = useState<Attempt[] | null>(null);
  const [replay, setReplay] = useState<Replay | null>(null);
  const [span, setSpan] = useState({ since: '', until: '' });
  const act = (work: () => Promise<void>) => () => void work().catch((e: unknown) => setNote(explain(e)));

  useEffect(() => {
    if (!replay || (replay.status !== 'queued' && replay.status !== 'running')) return;
    const timer = setTimeout(
      act(async () => setReplay(await api.get<Replay>(`${base}/replay`))),
      POLL_MS,
    );
    return () => clearTimeout(timer);
  }, [replay]);

  const heading = `endpoint-${endpoint.id}`;
  return (
    <li class="endpoint">
      <section aria-labelledby={heading}>
        <h2 id={heading}>{endpoint.description || endpoint.id}</h2>
        <dl>
          <dt>URL</dt>
          <dd>{endpoint.url}</dd>
          <dt>Actions sent</dt>
          <dd>{endpoint.event_filter.length > 0 ? endpoint.event_filter.join(', ') : 'every action'}</dd>
          <dt>Patients</dt>
          <dd>
            {endpoint.patient_filter.length > 0
              ? endpoint.patient_filter.join(', ')
              : 'every event, whoever it names'}
          </dd>
          <dt>State</dt>
          <dd>
            {endpoint.active ? 'active' : 'disabled'}, {endpoint.consecutive_failures} failed deliveries in a
            row, last delivery{' '}
            {endpoint.last_delivery_at ? showTime(iso(endpoint.last_delivery_at), utc) : 'never'}
          </dd>
        </dl>
        <div class="endpoint-actions">
          <button
            type="button"
            onClick={act(async () => {
              const answer = await api.get<{ attempts: Attempt[] }>(
                `${base}/attempts`,
                new URLSearchParams({ limit: '20' }),
              );
              setAttempts(answer.attempts);
            })}
          >
            Delivery attempts
          </button>
          {canManage && (
            <>
              <button
                type="button"
                onClick={act(async () => {
                  const sent = await api.post<{
                    delivered: boolean;
                    status_code: number | null;
                    latency_ms: number;
                    error: string | null;
                  }>(`${base}/test`, {});
                  setNote(
                    sent.delivered
                      ? `Test delivered: the receiver answered ${sent.status_code} in ${sent.latency_ms} ms.`
                      : `Test not delivered: ${sent.error ?? `the receiver answered ${sent.status_code}`}.`,
                  );
                })}
              >
                Send a test
              </button>
              <button
                type="button"
                onClick={act(async () => {
                  const rotated = await api.post<{ secret: string; previous_secret_expires_at: string }>(
                    `${base}/rotate-secret`,
                    {},
                  );
                  setSecret(rotated.secret);
                  setNote(
                    `The previous secret signs deliveries too until ${showTime(iso(rotated.previous_secret_expires_at), utc)}.`,
                  );
                  onChange();
                })}
              >
                Rotate the secret
              </button>
            </>
          )}
        </div>
        {canManage && (
          <form
            class="replay"
            aria-label={`Replay to ${endpoint.description || endpoint.id}`}
            onSubmit={(e) => {
              e.preventDefault();
              act(async () => {
                const body = {
                  since: timeFromInput(span.since, utc),
                  ...(span.until ? { until: timeFromInput(span.until, utc) } : {}),
                };
                setReplay(await api.post<Replay>(`${base}/replay`, body));
              })();
            }}
          >
            <label for={`${heading}-since`}>Replay from</label>
            <input
              id={`${heading}-since`}
              type="datetime-local"
              step={1}
              required
              value={span.since}
              onChange={(e) => setSpan((w) => ({ ...w, since: e.currentTarget.value }))}
            />
            <label for={`${heading}-until`}>until</label>
            <input
              id={`${heading}-until`}
              type="datetime-local"
              step={1}
              value={span.until}
              onChange={(e) => setSpan((w) => ({ ...w, until: e.currentTarget.value }))}
            />
            <button type="submit">Replay</button>
          </form>
        )}
        {note && (
          <p class="note" role="status">
            {note}
          </p>
        )}
        {secret && (
          <p class="secret">
            New secret, shown this once: <code>{secret}</code>{' '}
            <button type="button" onClick={() => void navigator.clipboard?.writeText(secret)}>
              Copy
            </button>
          </p>
        )}
        {replay && (
          <p class="note" role="status">
            Replay {replay.status}: {replay.records_read} events read, {replay.deliveries_queued} deliveries
            queued
            {replay.error ? `; ${replay.error}` : ''}.
          </p>
        )}
        {attempts && <Attempts attempts={attempts} utc={utc} />}
      </section>
    </li>
  );
}

function Attempts({ attempts, utc }: { attempts: Attempt[]; utc: boolean }) {
  if (attempts.length === 0) return <p>No delivery attempts yet.</p>;
  return (
    <table class="attempts">
      <caption>The latest delivery attempts, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Attempt</th>
          <th scope="col">Outcome</th>
          <th scope="col">Answer</th>
          <th scope="col">Took</th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((a) => (
          <tr key={`${a.event_id}-${a.attempt}-${a.attempted_at}`}>
            <td>{showTime(iso(a.attempted_at), utc)}</td>
            <td>{a.event_id}</td>
            <td>
              {a.attempt}
              {a.replay ? ' (replay)' : ''}
            </td>
            <td>{a.outcome}</td>
            <td>{a.status_code ?? a.error ?? '—'}</td>
            <td>{a.latency_ms} ms</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
