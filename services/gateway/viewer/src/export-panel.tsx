import { useEffect, useState } from 'preact/hooks';
import { ApiError, explain, type Api } from './api.js';
import type { Filters } from './filters.js';
import { showTime } from './time.js';

/** An export job as the page follows it (docs/exports.md "Jobs"). */
interface Job {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'expired';
  format: string;
  progress: { rows_written: number; rows_expected: number | null };
  manifest: { row_count: number; byte_size: number; expires_at: string } | null;
  error: { message: string } | null;
  download_url: string | null;
}

const FORMATS: [value: string, label: string, extension: string][] = [
  ['csv', 'CSV (gzip)', 'csv.gz'],
  ['ndjson', 'NDJSON (gzip)', 'ndjson.gz'],
  ['parquet', 'Parquet', 'parquet'],
];
// How often a running job is looked at: progress a person can follow, a read of the key's bucket each time.
const POLL_MS = 1000;

/**
 * Export the search: an export job with the page's filters, followed until its file is ready, then downloaded
 * through the API with the token (a link could not carry it). A job needs a window: the search's From.
 */
export function ExportPanel({ api, filters, utc }: { api: Api; filters: Filters; utc: boolean }) {
  const [format, setFormat] = useState('csv');
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!job || (job.status !== 'queued' && job.status !== 'running')) return;
    const timer = setTimeout(() => {
      api.get<Job>(`/audit/exports/${job.id}`).then(setJob, (e) => setError(explain(e)));
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [api, job]);

  const start = async () => {
    setError(null);
    setBusy(true);
    try {
      const body: Record<string, unknown> = { ...filters, format };
      for (const flag of ['phi_involved', 'success']) if (flag in body) body[flag] = body[flag] === 'true';
      setJob(await api.post<Job>('/audit/exports', body));
    } catch (e) {
      const fields = e instanceof ApiError ? e.fields.map((f) => `${f.field} ${f.message}`).join('; ') : '';
      setError(fields ? `${explain(e)} ${fields}.` : explain(e));
    } finally {
      setBusy(false);
    }
  };

  const download = async () => {
    if (!job?.download_url) return;
    setBusy(true);
    try {
      const file = await api.file(job.download_url);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(file);
      link.download = `audit-export-${job.id}.${FORMATS.find(([value]) => value === job.format)?.[2] ?? 'bin'}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    } catch (e) {
      setError(explain(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="export" aria-labelledby="export-heading">
      <h2 id="export-heading">Export these results</h2>
      {!filters.since && (
        <p>An export needs a window: set From (at most 366 days before Until) and search.</p>
      )}
      <div class="export-controls">
        <label for="export-format">Format</label>
        <select id="export-format" value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
          {FORMATS.map(([value, label]) => (
            <option value={value} key={value}>
              {label}
            </option>
          ))}
        </select>
        <button type="button" disabled={busy || !filters.since} onClick={() => void start()}>
          Start export
        </button>
      </div>
      {job && (
        <p class="job" role="status">
          {describe(job, utc)}{' '}
          {job.status === 'succeeded' && (
            <button type="button" disabled={busy} onClick={() => void download()}>
              Download
            </button>
          )}
        </p>
      )}
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function describe(job: Job, utc: boolean): string {
  const n = (x: number) => x.toLocaleString('en-US');
  switch (job.status) {
    case 'queued':
      return 'Export queued…';
    case 'running':
      return `Exporting: ${n(job.progress.rows_written)}${job.progress.rows_expected === null ? '' : ` of ${n(job.progress.rows_expected)}`} events written…`;
    case 'succeeded':
      return `Export ready: ${n(job.manifest!.row_count)} events, ${n(job.manifest!.byte_size)} bytes, kept until ${showTime(job.manifest!.expires_at.replace('+00:00', 'Z'), utc)}.`;
    case 'failed':
      return `Export failed: ${job.error?.message ?? 'no reason given'}`;
    default:
      return 'Export expired: its file is deleted.';
  }
}
