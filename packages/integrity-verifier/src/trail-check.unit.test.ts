import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { signCheckpoint } from '../../../services/shared/src/integrity/checkpoint-signer.js';
import {
  checkScenario,
  hashes,
  key,
  keys,
  listed,
  note,
  ORIGIN,
  row,
  rows,
  T0,
  trailScenarios,
  windowProof,
  type TrailScenario,
} from '../../../test/support/trail-fixture.js';
import { rootOf } from './merkle.js';
import { hashBlock } from './row-hasher.js';
import { trailCheck, type Finding, type ListedCheckpoint, type WindowProof } from './trail-check.js';

function check(
  rowsGiven: unknown[],
  opts: {
    proofs?: WindowProof[];
    checkpoints?: ListedCheckpoint[];
    complete?: boolean;
    truncated?: boolean;
  } = {},
) {
  const c = trailCheck({
    keys,
    checkpoints: opts.checkpoints ?? listed([5, 12, 20]),
    proofs: opts.proofs ?? [windowProof(4, 10, 12)],
    complete: opts.complete ?? true,
    origin: ORIGIN,
  });
  rowsGiven.forEach((r, i) => c.row(r, i + 1));
  return c.finish(opts.truncated ?? false);
}
const windowRows = rows.slice(4, 10);

describe('trailCheck', () => {
  it('verifies an untouched export: every checkpoint, every link, every row', () => {
    expect(check(windowRows)).toEqual({
      ok: true,
      checkpoints: 3,
      links: 2,
      leaves: 6,
      rows: 6,
      purged: 0,
      purged_before: null,
      findings: [],
    });
  });

  it('names altered, missing, forged, repeated, outside and malformed rows', () => {
    const forged = { ...row(21), timestamp: rows[5]!.timestamp };
    const given = [
      { ...rows[4]!, user_id: 'mallory' },
      rows[6],
      rows[6],
      rows[7],
      rows[8],
      forged,
      rows[15],
      { ...rows[9]!, success: 'yes' },
    ];
    expect(check(given).findings).toEqual([
      { kind: 'altered', event_id: rows[4]!.event_id, leaf_index: 4 },
      { kind: 'repeated', event_id: rows[6]!.event_id },
      { kind: 'forged', event_id: forged.event_id },
      { kind: 'outside', event_id: rows[15]!.event_id },
      { kind: 'row', row: 8, problem: 'success: missing or not a boolean' },
      { kind: 'missing', event_id: rows[5]!.event_id, leaf_index: 5 },
      { kind: 'missing', event_id: rows[9]!.event_id, leaf_index: 9 },
    ]);
  });

  it('tells rows appended after the checkpoint from forged ones, and leaves out of a truncated or filtered export', () => {
    expect(check(windowRows, { proofs: [windowProof(4, 10, 8)], checkpoints: listed([8]) }).findings).toEqual(
      [
        { kind: 'uncovered', event_id: rows[8]!.event_id },
        { kind: 'uncovered', event_id: rows[9]!.event_id },
      ],
    );
    // Newest first, cut at the cap: the leaves older than its oldest row are not missing.
    // A truncated export with no row exempts nothing.
    expect(check([], { truncated: true }).findings).toHaveLength(6);
    expect(check([rows[5]], { complete: false }).findings).toEqual([]);
  });

  it('finds nothing in an untouched export, and something in every tampered one of the shared scenarios', () => {
    for (const s of trailScenarios()) {
      const { findings } = checkScenario(s);
      const clean = ['untouched', 'partial', 'honest cut', 'purged', 'version 3, fields erased'].includes(
        s.name,
      );
      expect(findings.length === 0, `${s.name}: ${JSON.stringify(findings)}`).toBe(clean);
    }
  });

  it('takes an erased field of version 3 through its commitment, and still finds any other change', () => {
    const tampered = trailScenarios().find((s) => s.name === 'version 3, tampered after an erasure')!;
    const { findings } = checkScenario(tampered);
    const ids = (tampered.rows as { event_id: string }[]).map((r) => r.event_id);
    // The commitment of another value, another salt, a kept field changed: other leaves. The erased value back: no
    // event (an erased field is null). The two rows left as they were: verified.
    expect(
      findings.map((f) => [f.kind, 'event_id' in f ? f.event_id : null, 'row' in f ? f.row : null]),
    ).toEqual(
      expect.arrayContaining([
        ['altered', ids[0], null],
        ['altered', ids[1], null],
        ['row', null, 3],
        ['altered', ids[3], null],
        ['missing', ids[2], null],
      ]),
    );
    expect(findings).toHaveLength(5);
  });

  it('counts the leaves its proof marks purged under the horizon apart, and believes no other mark', () => {
    const scenarios = trailScenarios().filter((s) => s.name.startsWith('purged'));
    const run = (name: string) => checkScenario(scenarios.find((c) => c.name === name)!);
    // Two purged rows absent, the third present (a hold kept it): neither is missing.
    expect(run('purged')).toMatchObject({
      ok: true,
      rows: 4,
      leaves: 6,
      purged: 2,
      purged_before: rows[7]!.timestamp,
    });
    // A mark on the leaf at the horizon itself: not older, not believed.
    expect(run('purged at the horizon').findings.map((f) => f.kind)).toEqual(['proof']);
    const missing = (i: number) => ({ kind: 'missing', event_id: rows[i]!.event_id, leaf_index: i });
    const proofProblem = {
      kind: 'proof',
      tree_size: 12,
      problem: "a leaf it marks purged is not older than the tenant's purge horizon",
    };
    expect(run('purged above the horizon')).toMatchObject({
      purged: 2,
      findings: [proofProblem, missing(8), missing(9)],
    });
    expect(run('purged without a horizon')).toMatchObject({
      purged: 0,
      findings: [proofProblem, missing(4), missing(5)],
    });
  });

  it('leaves out of a truncated export only what an honest cut at the cap leaves out', () => {
    const cuts = trailScenarios().filter((s) => s.name.includes('cut'));
    const run = (name: string) => checkScenario(cuts.find((c) => c.name === name)!);
    expect(run('honest cut')).toMatchObject({ ok: true, rows: 10_000, leaves: 10_003 });
    // Its oldest row removed, the cut no longer holds: that row and the older ones are all missing.
    expect(
      run('cut with its oldest row removed').findings.map((f) => 'leaf_index' in f && f.leaf_index),
    ).toEqual([0, 1, 2, 3]);
  });

  it('names a bad signature, another origin, a fork and a window proof that does not make the root', () => {
    const cps = listed([5, 12, 20]);
    cps[0]!.note = cps[0]!.note.replace('\ntime 2026', '\ntime 2025');
    expect(check(windowRows, { checkpoints: cps }).findings).toEqual([
      { kind: 'checkpoint', tree_size: 5, problem: 'bad signature' },
    ]);
    const other = listed([12]);
    other[0]!.note = signCheckpoint(
      { origin: 'elsewhere/tenants/acme', size: 12, root: rootOf(hashes.slice(0, 12)), time: T0 },
      key,
    );
    expect(check(windowRows, { checkpoints: other }).findings).toEqual([
      {
        kind: 'checkpoint',
        tree_size: 12,
        problem: 'its origin "elsewhere/tenants/acme" is not "audit.example.test/tenants/acme"',
      },
      { kind: 'proof', tree_size: 12, problem: 'no checkpoint of its size verified' },
    ]);
    const fork = listed([5, 12, 20]);
    fork[1]!.note = note(12, rootOf([...hashes.slice(0, 11), hashes[0]!]));
    expect(check(windowRows, { checkpoints: fork }).findings).toEqual([
      {
        kind: 'checkpoint',
        tree_size: 12,
        problem: 'not consistent with the checkpoint of 5 leaves: one of the two forks',
      },
      {
        kind: 'checkpoint',
        tree_size: 20,
        problem: 'not consistent with the checkpoint of 12 leaves: one of the two forks',
      },
      { kind: 'proof', tree_size: 12, problem: "its leaves and hashes do not make the checkpoint's root" },
    ]);
    const dropped = windowProof(4, 10, 12);
    dropped.leaves.splice(2, 1);
    expect(check(windowRows, { proofs: [dropped] }).findings).toEqual([
      { kind: 'proof', tree_size: 12, problem: "its leaves and hashes do not make the checkpoint's root" },
      { kind: 'forged', event_id: rows[6]!.event_id },
    ]);
  });

  it('finds in blocks of rows what it finds row by row, also in window proofs that lie about ids', () => {
    // The scenario's rows as the worker threads give them: in blocks of `size`, each hashed as a thread does.
    const inBlocks = (sc: TrailScenario, size: number) => {
      const c = trailCheck({ keys, ...sc, origin: ORIGIN });
      for (let i = 0; i < sc.rows.length; i += size) {
        const lines = sc.rows.slice(i, i + size).map((r) => JSON.stringify(r) ?? 'undefined');
        c.block(hashBlock(Buffer.from(lines.join('\n'))));
      }
      return c.finish(sc.truncated);
    };
    const base = trailScenarios()[0]!;
    // One leaf shown with another's hash, and one with another's id.
    const hashOfAnother = windowProof(4, 10, 12);
    hashOfAnother.leaves[1]!.leaf_hash = hashOfAnother.leaves[0]!.leaf_hash;
    const idOfAnother = windowProof(4, 10, 12);
    idOfAnother.leaves[1]!.event_id = idOfAnother.leaves[0]!.event_id;
    const lying = [hashOfAnother, idOfAnother].map((proof, n) => ({
      ...base,
      name: `lying proof ${n}`,
      proofs: [proof],
      rows: [...windowRows, rows[4], rows[5]],
    }));
    for (const sc of [...trailScenarios(), ...lying]) {
      const expected = checkScenario(sc);
      for (const size of [1, 3, 1000]) expect(inBlocks(sc, size), `${sc.name}, ${size}`).toEqual(expected);
    }
    expect(checkScenario(lying[1]!).findings).toContainEqual({ kind: 'forged', event_id: rows[5]!.event_id });
  });

  it("finds a row's leaf next to the row before's as the index would, in any order of rows", () => {
    // A proof that shows one id at two leaves: the later one is the id's leaf, also for a row that comes right
    // after the earlier one's neighbour.
    const twice = windowProof(4, 10, 12);
    twice.leaves[1]!.event_id = twice.leaves[0]!.event_id;
    const found = (given: unknown[]) => check(given, { proofs: [twice], complete: false }).findings;
    const altered = { kind: 'altered', event_id: rows[4]!.event_id, leaf_index: 5 };
    const repeated = { kind: 'repeated', event_id: rows[4]!.event_id };
    expect(found([rows[4]])).toContainEqual(altered);
    // The second row looks next to the first one's leaf (the later one) first, at the earlier leaf of the id.
    expect(found([rows[4], rows[4]])).toEqual(expect.arrayContaining([altered, repeated]));
    // Through a block, where each id lies inside one string of the block's ids.
    const c = trailCheck({
      keys,
      checkpoints: listed([5, 12, 20]),
      proofs: [twice],
      complete: false,
      origin: ORIGIN,
    });
    c.block(hashBlock(Buffer.from([rows[6], rows[4], rows[4]].map((r) => JSON.stringify(r)).join('\n'))));
    expect(c.finish(false).findings).toEqual(expect.arrayContaining([altered, repeated]));
    // Ascending, descending (an export's order) and shuffled rows, tampered or not: the same findings by row.
    const byRow = (findings: Finding[]) => findings.map((f) => JSON.stringify(f)).sort();
    const tampered = [...windowRows];
    tampered[2] = { ...tampered[2]!, user_id: 'mallory' };
    for (const given of [windowRows, tampered]) {
      const expected = byRow(check(given).findings);
      for (const order of [
        [...given].reverse(),
        [given[3], given[0], given[5], given[1], given[4], given[2]],
      ])
        expect(byRow(check(order).findings)).toEqual(expected);
    }
  });
});
