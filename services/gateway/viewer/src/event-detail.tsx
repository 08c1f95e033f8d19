import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { pretty, type AuditEvent } from './event.js';
import { sentenceOf, templateFor, type DisplayTemplate } from './templates.js';
import { showTime } from './time.js';
import { VerifiedMark } from './verified-mark.js';
import type { Verdict } from './verify.js';

interface Props {
  event: AuditEvent;
  verdict: Verdict | undefined;
  templates: readonly DisplayTemplate[];
  utc: boolean;
  onClose: () => void;
}

const FIELDS: [keyof AuditEvent, string][] = [
  ['event_id', 'Event id'],
  ['action', 'Action'],
  ['user_id', 'User'],
  ['user_role', 'Role'],
  ['resource_type', 'Resource type'],
  ['resource_id', 'Resource id'],
  ['phi_involved', 'PHI involved'],
  ['success', 'Succeeded'],
  ['source_ip', 'Source IP'],
  ['user_agent', 'User agent'],
  ['justification', 'Justification'],
  ['patient_id', 'Patient'],
  ['purpose_of_use', 'Purpose of use'],
  ['disclosure', 'Disclosure'],
  ['recipient', 'Recipient'],
  ['accounting_exclusion', 'Accounting exclusion'],
  ['tenant_id', 'Tenant'],
];

function Copy({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="copy"
      aria-label={`Copy ${label}`}
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(
          () => setDone(true),
          () => setDone(false),
        )
      }
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

/** Every field of one event, its JSON fields indented; values are text, never markup. Escape closes it. */
export function EventDetail({ event, verdict, templates, utc, onClose }: Props) {
  const template = templateFor(event, templates);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [event.event_id]);
  return (
    <section
      class="detail"
      aria-labelledby="detail-heading"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <header>
        <h2 id="detail-heading" tabIndex={-1} ref={heading}>
          {event.action} <span class="when">{showTime(event.timestamp, utc)}</span>
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </header>
      {template && (
        <p class="sentence">
          {sentenceOf(event, template, utc)} <span class="selector">(template {template.selector})</span>
        </p>
      )}
      <VerifiedMark verdict={verdict} utc={utc} />
      <dl>
        <dt>Time</dt>
        <dd>
          <time dateTime={event.timestamp}>{showTime(event.timestamp, utc)}</time>{' '}
          <Copy text={event.timestamp} label="time" />
        </dd>
        {FIELDS.map(([name, label]) => (
          <Fragment key={name}>
            <dt>{label}</dt>
            <dd>
              {String(event[name])} <Copy text={String(event[name])} label={label} />
            </dd>
          </Fragment>
        ))}
        <dt>Fields accessed</dt>
        <dd>
          <pre>{pretty(event.fields_accessed)}</pre>
        </dd>
        <dt>Details</dt>
        <dd>
          <pre>{pretty(event.details)}</pre> <Copy text={event.details} label="details" />
        </dd>
      </dl>
    </section>
  );
}
