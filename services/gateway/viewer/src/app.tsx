import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, explain, type Api } from './api.js';
import { ExportPanel } from './export-panel.js';
import { EventDetail } from './event-detail.js';
import { EventList } from './event-list.js';
import type { AuditEvent, EventPage, ViewerSession } from './event.js';
import { filtersOf, queryOf, type Filters } from './filters.js';
import { SearchForm } from './search-form.js';
import type { DisplayTemplate } from './templates.js';
import { showTime } from './time.js';
import { eventVerifier, type Verdict } from './verify.js';
import { WebhooksView } from './webhooks-view.js';

type View = 'events' | 'webhooks';
const viewOf = (search: string): View =>
  new URLSearchParams(search).get('view') === 'webhooks' ? 'webhooks' : 'events';

// Rows a page reads: enough to fill a tall screen and the rows below it at once.
const PAGE_SIZE = 200;
// Proofs asked for at once when the rows in view are verified: a screen's worth in a few round trips, well inside
// the key's rate limit.
const VERIFY_AT_ONCE = 4;

interface Results {
  events: AuditEvent[];
  cursor: string | null;
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  fieldErrors: Record<string, string>;
}

const EMPTY: Results = {
  events: [],
  cursor: null,
  hasMore: true,
  loading: false,
  error: null,
  fieldErrors: {},
};

/** The viewer: the search, its results as one scrolling list, and the detail of the event chosen. */
export function App({ api }: { api: Api }) {
  const get = api.get;
  const [session, setSession] = useState<ViewerSession | null>(null);
  const [sessionError, setSessionError] = useState<string | null>(null);
  const [filters, setFilters] = useState<Filters>(() => filtersOf(location.search));
  const [view, setView] = useState<View>(() => viewOf(location.search));
  const [utc, setUtc] = useState(false);
  const [results, setResults] = useState<Results>(EMPTY);
  const [open, setOpen] = useState<AuditEvent | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  // Each search's number: pages of a search the user has since replaced are dropped when they arrive.
  const generation = useRef(0);
  const verifier = useMemo(() => eventVerifier(get), [get]);
  const [verdicts, setVerdicts] = useState<Record<string, Verdict>>({});
  const inView = useRef<[number, number]>([0, 0]);
  const onView = useCallback((first: number, end: number) => {
    inView.current = [first, end];
  }, []);

  /** Checks an event once; a verdict other than verified is checked again when asked again. */
  const verify = useCallback(
    async (event: AuditEvent) => {
      const id = event.event_id;
      setVerdicts((v) => (v[id]?.state === 'verified' ? v : { ...v, [id]: { state: 'checking' } }));
      const verdict = await verifier(event);
      setVerdicts((v) => ({ ...v, [id]: verdict }));
    },
    [verifier],
  );

  const [templates, setTemplates] = useState<DisplayTemplate[]>([]);
  useEffect(() => {
    get<ViewerSession>('/audit/viewer-tokens/current').then(setSession, (e) => setSessionError(explain(e)));
    // Without them each row says who acted on what: the templates are a nicety, never a reason to fail.
    get<{ templates: DisplayTemplate[] }>('/audit/display-templates').then(
      (answer) => setTemplates(answer.templates),
      () => undefined,
    );
  }, [get]);

  useEffect(() => {
    const back = () => {
      setFilters(filtersOf(location.search));
      setView(viewOf(location.search));
    };
    window.addEventListener('popstate', back);
    return () => window.removeEventListener('popstate', back);
  }, []);

  const loadPage = useCallback(
    (from: Results, search: Filters, run: number) => {
      setResults({ ...from, loading: true });
      // User Timing marks: what devtools and `npm run bench:viewer` time a page by.
      performance.mark('viewer:page-asked', { detail: { rows: from.events.length } });
      const query = queryOf(search);
      query.set('limit', String(PAGE_SIZE));
      if (from.cursor) query.set('cursor', from.cursor);
      get<EventPage>('/audit/events', query).then(
        (page) => {
          if (run !== generation.current) return;
          setResults({
            ...EMPTY,
            events: from.events.concat(page.events),
            cursor: page.page.next_cursor,
            hasMore: page.page.has_more,
          });
        },
        (error) => {
          if (run !== generation.current) return;
          const fieldErrors =
            error instanceof ApiError
              ? Object.fromEntries(error.fields.map(({ field, message }) => [field, message]))
              : {};
          setResults({ ...from, loading: false, hasMore: false, error: explain(error), fieldErrors });
        },
      );
    },
    [get],
  );

  // The first page is asked for at once, beside the token's own description: the API holds a narrowed token to
  // its filter whatever the page knows of it yet.
  useEffect(() => {
    generation.current += 1;
    setOpen(null);
    loadPage(EMPTY, filters, generation.current);
  }, [filters, loadPage]);

  const more = useCallback(
    () => loadPage(results, filters, generation.current),
    [results, filters, loadPage],
  );

  const verifyInView = async () => {
    const [first, end] = inView.current;
    const queue = results.events.slice(first, end).filter((e) => verdicts[e.event_id]?.state !== 'verified');
    const worker = async () => {
      for (let event = queue.shift(); event; event = queue.shift()) await verify(event);
    };
    await Promise.all(Array.from({ length: VERIFY_AT_ONCE }, worker));
  };

  /** The address holds the search and the view: both are the deep link, and Back returns to each. */
  const go = (next: Filters, nextView: View) => {
    const query = queryOf(next);
    if (nextView === 'webhooks') query.set('view', 'webhooks');
    history.pushState(null, '', `${location.pathname}${query.size > 0 ? `?${query}` : ''}`);
    setFilters(next);
    setView(nextView);
  };
  const search = (next: Filters) => go(next, 'events');

  if (sessionError) {
    return (
      <main class="blocked">
        <h1>Audit trail</h1>
        <p role="alert">{sessionError}</p>
      </main>
    );
  }
  const fixed = session?.narrowed_to ?? {};
  const status = results.error
    ? null
    : results.loading && results.events.length === 0
      ? 'Loading…'
      : results.events.length === 0 && !results.hasMore
        ? 'No events match.'
        : `${results.events.length.toLocaleString('en-US')} event${results.events.length === 1 ? '' : 's'}${results.hasMore ? ' so far; more load as you scroll' : ', the whole result'}.`;
  return (
    <>
      <header class="top">
        <h1>Audit trail</h1>
        {session && (
          <p class="session">
            {Object.keys(fixed).length > 0 && (
              <span>
                Showing only{' '}
                {Object.entries(fixed)
                  .map(
                    ([name, value]) => `${name} ${name === 'action_prefix' ? 'starting with' : '='} ${value}`,
                  )
                  .join(', ')}
                .{' '}
              </span>
            )}
            <span>This link works until {showTime(session.expires_at, utc)}.</span>
          </p>
        )}
        {session && Object.keys(fixed).length === 0 && (
          <nav class="nav" aria-label="Views">
            {(['events', 'webhooks'] as const).map((name) => (
              <button
                type="button"
                key={name}
                aria-current={view === name ? 'page' : undefined}
                onClick={() => go(filters, name)}
              >
                {name === 'events' ? 'Events' : 'Webhooks'}
              </button>
            ))}
          </nav>
        )}
        <label class="utc">
          <input type="checkbox" checked={utc} onChange={(e) => setUtc(e.currentTarget.checked)} /> Times in
          UTC
        </label>
      </header>
      {view === 'webhooks' && session && Object.keys(fixed).length === 0 ? (
        <main>
          <WebhooksView api={api} canManage={session.scopes.includes('webhooks:write')} utc={utc} />
        </main>
      ) : (
        eventsView()
      )}
    </>
  );

  /** The search and its results: a function, not a component, so that its elements keep their state. */
  function eventsView() {
    return (
      <>
        <SearchForm
          key={JSON.stringify(filters) + String(utc)}
          filters={filters}
          fixed={fixed}
          utc={utc}
          fieldErrors={results.fieldErrors}
          onSearch={search}
        />
        <main class={open ? 'results with-detail' : 'results'}>
          <div class="status-line">
            <p class="status" role="status">
              {status}
            </p>
            {results.events.length > 0 && (
              <button type="button" onClick={() => void verifyInView()}>
                Verify the rows in view
              </button>
            )}
          </div>
          {session?.scopes.includes('audit:export') && <ExportPanel api={api} filters={filters} utc={utc} />}
          {results.error && (
            <p class="alert" role="alert">
              {results.error}
            </p>
          )}
          <EventList
            events={results.events}
            hasMore={results.hasMore && !results.error}
            loading={results.loading}
            utc={utc}
            selected={open?.event_id ?? null}
            verdicts={verdicts}
            templates={templates}
            onMore={more}
            onView={onView}
            onOpen={(event, row) => {
              opener.current = row;
              setOpen(event);
              void verify(event);
            }}
          />
          {open && (
            <EventDetail
              event={open}
              verdict={verdicts[open.event_id]}
              templates={templates}
              utc={utc}
              onClose={() => {
                setOpen(null);
                opener.current?.focus();
              }}
            />
          )}
        </main>
      </>
    );
  }
}
