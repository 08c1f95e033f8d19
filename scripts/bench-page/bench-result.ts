import { z } from 'zod';

/** One measure of a bench run: the result as the bench words it, and the goal it is held to, if any. */
const benchRow = z.object({
  measure: z.string().min(1),
  result: z.string().min(1),
  goal: z.string().optional(),
  met: z.boolean().optional(),
  /** One of many cases: on the bench's page of details, while the results page shows what sums them up. */
  detail: z.boolean().optional(),
});

/** One bar group of a chart: a label and its named values (one bar each). */
const chartPoint = z.object({ label: z.string().min(1), values: z.record(z.string(), z.number()) });

/** What a bench writes to `bench/results/<bench>.json`, and all the results page reads. */
export const benchResult = z.object({
  bench: z.string().regex(/^[a-z-]+$/),
  command: z.string(),
  machine: z.string(),
  node: z.string(),
  commit: z.string(),
  started: z.iso.datetime(),
  finished: z.iso.datetime(),
  load: z.object({ start: z.number(), end: z.number() }),
  rows: z.array(benchRow).min(1),
  charts: z.record(z.string(), z.array(chartPoint)),
  notes: z.array(z.string()),
});

export type BenchResult = z.infer<typeof benchResult>;
export type BenchRow = z.infer<typeof benchRow>;
export type ChartPoint = z.infer<typeof chartPoint>;
