import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, type LegalHold, type PurgeRun } from '@audit/shared/retention';
import { holdsTable, holdText, policyText, purgeStatusText, releaseText } from './retention-text.js';

const hold: LegalHold = {
  hold_id: '0b6e7c1a-3f7d-4c55-9a43-2f0e8d1b6a10',
  // Stored through the API, whose reasons and ids may hold any character: an escape sequence, a C1 CSI, DEL.
  reason: 'matter \u001b]0;owned\u0007 \u009b31m red\u007f',
  scope: { user_id: 'dr.\u001b[2Jjones', patient_id: 'p-1042', since: Date.UTC(2025, 0, 1) },
  created_at: new Date(Date.UTC(2026, 4, 1, 9)),
  created_by: 'api_key:0123abcd',
  released_at: new Date(Date.UTC(2026, 4, 2, 9)),
  released_by: 'operator:\u009bann',
  release_reason: 'settled\r\n',
};

describe('the text of retention commands', () => {
  it('says when the policy is the default', () => {
    expect(policyText(DEFAULT_POLICY)).toBe(
      'kept at least 2192 days, no maximum (the default policy, never set)',
    );
    const set = {
      min_days: 30,
      max_days: 400,
      version: 3,
      changed_at: new Date(0),
      changed_by: 'operator:ann',
    };
    expect(policyText(set)).toBe(
      'kept at least 30 days, at most 400 days (version 3, set 1970-01-01T00:00:00.000+00:00 by "operator:ann")',
    );
  });

  it('gives no stored text a way to write control sequences to the terminal', () => {
    const texts = [holdText(hold), releaseText(hold), holdsTable([hold], true)];
    for (const text of texts) expect(text.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u);
    expect(holdText(hold)).toBe(
      'hold 0b6e7c1a-3f7d-4c55-9a43-2f0e8d1b6a10 (user_id "dr.\\u001b[2Jjones", patient_id "p-1042", ' +
        'since 2025-01-01T00:00:00.000+00:00; reason "matter \\u001b]0;owned\\u0007 \\u009b31m red\\u007f")',
    );
    expect(releaseText(hold)).toBe(
      'released 2026-05-02T09:00:00.000+00:00 by "operator:\\u009bann" (reason "settled\\r\\n")',
    );
  });

  it('says a hold that sets no field holds every event', () => {
    expect(holdText({ ...hold, reason: 'r', scope: {} })).toContain('(every event; reason "r")');
  });

  it('says where a run has got, and where a failed one stopped', () => {
    const run = (over: Partial<PurgeRun>): PurgeRun => ({
      purge_id: 'p1',
      purged_before: Date.UTC(2020, 0, 1),
      holds: 0,
      status: 'running',
      purged: null,
      kept: null,
      error: null,
      started_at: new Date(Date.UTC(2026, 10, 30, 9)),
      finished_at: null,
      started_by: 'operator:alice',
      progress: null,
      ...over,
    });
    const lines = purgeStatusText('acme', {
      purgedBefore: Date.UTC(2020, 0, 1),
      runs: [
        run({ progress: { phase: 'deleting', round: 1, tables_done: 2, tables: 4 } }),
        run({ progress: { phase: 'waiting', round: null, tables_done: null, tables: null } }),
        run({
          status: 'failed',
          error: 'ClickHouse error 341',
          progress: { phase: 'checking', round: 3, tables_done: 4, tables: 4 },
        }),
        run({}),
      ],
    }).split('\n');
    expect(lines.slice(1).map((l) => l.split(': before ')[1]!.split(', ').slice(1).join(', '))).toEqual([
      'running (deleting, round 1, 2 of 4 tables done)',
      'running (waiting for the projector)',
      'failed (checking, round 3): "ClickHouse error 341"',
      'running',
    ]);
  });
});
