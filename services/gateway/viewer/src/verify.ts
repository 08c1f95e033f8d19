import { verifyEvent, type EventCheck } from '@audit-trail/integrity-verifier/web';
import { ApiError, explain, type Get } from './api.js';
import type { AuditEvent } from './event.js';

/** An event's verified mark (docs/viewer.md "Verified mark"). */
export type Verdict =
  | { state: 'checking' }
  | { state: 'verified'; treeSize: number; signedAt: number; keyName: string; leafIndex: number }
  | { state: 'not_verified'; why: string }
  /** Not yet in a signed checkpoint: a fact about time, not about tampering. */
  | { state: 'not_yet'; why: string };

type KeysAnswer = { keys: { verifier_key: string }[] };

/**
 * Checks events in the browser: each one's inclusion proof in the latest signed checkpoint, the checkpoint's
 * signature against the published keys, and the event's own leaf, computed here from the fields the page shows.
 * The keys are read once per page.
 */
export function eventVerifier(get: Get) {
  let keys: Promise<KeysAnswer> | null = null;
  return async (event: AuditEvent): Promise<Verdict> => {
    keys ??= get<KeysAnswer>('/audit/integrity/keys').catch((error: unknown) => {
      keys = null;
      throw error;
    });
    let proof: unknown;
    try {
      proof = await get(
        '/audit/integrity/proofs/inclusion',
        new URLSearchParams({ event_id: event.event_id }),
      );
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        return {
          state: 'not_yet',
          why: 'It is not in a signed checkpoint yet: the trail signs new events within minutes. Open it again later.',
        };
      }
      return { state: 'not_verified', why: `Its proof could not be read: ${explain(error)}` };
    }
    let check: EventCheck;
    try {
      check = await verifyEvent({
        event: event as unknown as Record<string, unknown>,
        proof: proof as Parameters<typeof verifyEvent>[0]['proof'],
        keys: await keys,
      });
    } catch (error) {
      return { state: 'not_verified', why: `The browser could not check it: ${String(error)}` };
    }
    return check.ok
      ? {
          state: 'verified',
          treeSize: check.checkpoint.size,
          signedAt: check.checkpoint.time,
          keyName: check.keyName,
          leafIndex: check.leafIndex,
        }
      : { state: 'not_verified', why: check.message };
  };
}
