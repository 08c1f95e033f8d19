import type { Verdict } from './verify.js';
import { showTime } from './time.js';

/** The verified mark of an event's detail: what was checked, or why it could not be. */
export function VerifiedMark({ verdict, utc }: { verdict: Verdict | undefined; utc: boolean }) {
  if (!verdict || verdict.state === 'checking') {
    return (
      <p class="mark checking" role="status">
        Checking the event against the trail's signed checkpoint…
      </p>
    );
  }
  if (verdict.state === 'verified') {
    return (
      <p class="mark verified" role="status">
        <strong>✓ Verified</strong>: checked in this browser, this event is entry {verdict.leafIndex + 1} of
        the tenant's trail of {verdict.treeSize.toLocaleString('en-US')} events that key {verdict.keyName}{' '}
        signed at {showTime(new Date(verdict.signedAt).toISOString(), utc)}, unchanged since it was written.
      </p>
    );
  }
  return (
    <p class={verdict.state === 'not_yet' ? 'mark pending' : 'mark not-verified'} role="status">
      <strong>{verdict.state === 'not_yet' ? 'Not verified yet' : '✗ Not verified'}</strong>: {verdict.why}
    </p>
  );
}

/** The mark a row shows once its event was checked. */
export function rowMark(verdict: Verdict | undefined): string {
  if (verdict?.state === 'verified') return '✓';
  if (verdict?.state === 'not_verified') return '✗';
  return '';
}
