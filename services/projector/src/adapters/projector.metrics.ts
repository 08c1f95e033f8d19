import { Counter, Histogram, type Registry } from '@audit/shared/platform';
import type { FlushMeter } from './retrying-flush.js';
import type { TreeMeter } from './tree.appender.js';

const OUTCOMES = ['inserted', 'already_stored', 'duplicate', 'dead_lettered'] as const;
const STAGES = ['decode', 'validate', 'store'] as const;

export function projectorMetrics(registry: Registry): FlushMeter {
  const batchSize = new Histogram({
    name: 'projector_batch_size',
    help: 'Records per write (one flush of the buffer)',
    buckets: [1, 10, 100, 500, 1000, 2500, 5000, 10_000, 20_000, 50_000],
    registers: [registry],
  });
  const insertDuration = new Histogram({
    name: 'projector_insert_duration_seconds',
    help: 'Duration of the ClickHouse insert of one write that had new events',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const events = new Counter({
    name: 'projector_events_total',
    help: 'Records written: inserted, already_stored (skipped by id), duplicate (repeated in one write), dead_lettered',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const deadLetters = new Counter({
    name: 'projector_dead_letters_total',
    help: 'Records published to the dead-letter topic, by the stage that refused them',
    labelNames: ['stage'],
    registers: [registry],
  });
  // Every series exists from the start: a rate over a series that appears with its first increment misses it.
  for (const outcome of OUTCOMES) events.inc({ outcome }, 0);
  for (const stage of STAGES) deadLetters.inc({ stage }, 0);
  return {
    flushed({ records, deadLetters: letters, outcome }) {
      batchSize.observe(records);
      if (outcome.inserted > 0) insertDuration.observe(outcome.timings.insertMs / 1000);
      const duplicates = records - letters.length - outcome.inserted - outcome.alreadyStored;
      events.inc({ outcome: 'inserted' }, outcome.inserted);
      events.inc({ outcome: 'already_stored' }, outcome.alreadyStored);
      events.inc({ outcome: 'duplicate' }, duplicates);
      events.inc({ outcome: 'dead_lettered' }, letters.length);
      for (const letter of letters) deadLetters.inc({ stage: letter.stage });
    },
  };
}

export function treeMetrics(registry: Registry): TreeMeter {
  const leaves = new Counter({
    name: 'projector_tree_events_total',
    help: "Events given to the tenants' trees: appended (a new leaf), known (a leaf already)",
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'projector_tree_append_duration_seconds',
    help: "Duration of one write's append to its tenants' trees (one Postgres transaction)",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  for (const outcome of ['appended', 'known']) leaves.inc({ outcome }, 0);
  return {
    appended(o) {
      leaves.inc({ outcome: 'appended' }, o.appended);
      leaves.inc({ outcome: 'known' }, o.known);
      duration.observe(o.seconds);
    },
  };
}
