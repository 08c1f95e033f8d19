import { useEffect, useRef, useState } from 'preact/hooks';
import type { AuditEvent } from './event.js';
import { sentenceOf, templateFor, type DisplayTemplate } from './templates.js';
import { showTime } from './time.js';
import { rowMark } from './verified-mark.js';
import type { Verdict } from './verify.js';

/** Rows have one height, so that the list draws only those in view however deep it is scrolled. */
export const ROW_HEIGHT = 36;
// Rows drawn beyond each edge of the view, and how near its end the next page is asked for.
const OVERSCAN = 10;
const PREFETCH_ROWS = 60;

interface Props {
  events: AuditEvent[];
  hasMore: boolean;
  loading: boolean;
  utc: boolean;
  selected: string | null;
  verdicts: Record<string, Verdict>;
  templates: readonly DisplayTemplate[];
  onMore: () => void;
  /** The rows in view now, [first, end): what "Verify the rows in view" checks. */
  onView: (first: number, end: number) => void;
  onOpen: (event: AuditEvent, row: HTMLElement) => void;
}

/**
 * The results as one scrolling list that reads the next page as its end comes near. Only the rows in view (and a
 * few around them) exist in the document: thousands of rows deep it draws as many as at the top.
 */
export function EventList(props: Props) {
  const { events, hasMore, loading, utc, selected, verdicts, templates, onMore, onOpen, onView } = props;
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 600 });
  useEffect(() => {
    const el = box.current!;
    const measure = () => setView({ top: el.scrollTop, height: el.clientHeight });
    measure();
    el.addEventListener('scroll', measure, { passive: true });
    window.addEventListener('resize', measure);
    return () => {
      el.removeEventListener('scroll', measure);
      window.removeEventListener('resize', measure);
    };
  }, []);
  const last = Math.ceil((view.top + view.height) / ROW_HEIGHT);
  useEffect(() => {
    if (hasMore && !loading && last + PREFETCH_ROWS >= events.length) onMore();
  }, [hasMore, loading, last, events.length, onMore]);
  const first = Math.max(0, Math.floor(view.top / ROW_HEIGHT) - OVERSCAN);
  const end = Math.min(events.length, last + OVERSCAN);
  useEffect(() => {
    if (events.length > 0) performance.mark('viewer:rows-shown', { detail: { rows: events.length } });
  }, [events.length]);
  const inView = Math.floor(view.top / ROW_HEIGHT);
  useEffect(() => {
    onView(inView, Math.min(events.length, last));
  }, [inView, last, events.length, onView]);
  return (
    <div class="list" ref={box} tabIndex={0} role="region" aria-label="Events, newest first">
      {/* Each row's button says all of it; the heads are for the eye only. */}
      <div class="heads" aria-hidden="true">
        <span>Time</span>
        <span>Action</span>
        <span>What happened</span>
        <span>Outcome</span>
        <span>Verified</span>
      </div>
      <ul style={{ height: `${events.length * ROW_HEIGHT}px` }} aria-busy={loading}>
        {events.slice(first, end).map((event, i) => (
          <li
            key={event.event_id}
            style={{ top: `${(first + i) * ROW_HEIGHT}px` }}
            aria-posinset={first + i + 1}
            aria-setsize={hasMore ? -1 : events.length}
          >
            <button
              type="button"
              class={event.event_id === selected ? 'row selected' : 'row'}
              data-event-id={event.event_id}
              aria-pressed={event.event_id === selected}
              onClick={(e) => onOpen(event, e.currentTarget)}
            >
              <span class="time">{showTime(event.timestamp, utc)}</span>
              <span class="action">{event.action}</span>
              <span class="what">{sentenceOf(event, templateFor(event, templates), utc)}</span>
              <span class={event.success ? 'outcome ok' : 'outcome denied'}>
                {event.success ? 'succeeded' : 'denied or failed'}
              </span>
              <RowMark verdict={verdicts[event.event_id]} />
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function RowMark({ verdict }: { verdict: Verdict | undefined }) {
  const mark = rowMark(verdict);
  if (!mark) return <span class="verdict" />;
  const verified = mark === '✓';
  return (
    <span class={verified ? 'verdict ok' : 'verdict denied'}>
      {mark} <span class="visually-hidden">{verified ? 'verified' : 'not verified'}</span>
    </span>
  );
}
