import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ChartPoint } from './bench-result.js';

/** The charts the page draws, by the name a bench records their points under; one unit per chart. */
export const chartTitles: Record<string, { title: string; axis: string }> = {
  'ingest-rate': { title: 'Ingest: rates against the floor', axis: 'events per second' },
  'list-latency': { title: 'List, limit 100, first page: gateway latency per filter', axis: 'ms' },
  'export-latency': { title: 'Export of up to 10,000 rows per filter: total time', axis: 'ms' },
  'report-latency': {
    title: 'Patient access report of 5,000 events: total time per format',
    axis: 'ms',
  },
  'export-rate': { title: 'Export jobs against their baseline', axis: 'rows per second' },
  'webhook-rate': { title: 'Webhook deliveries against the floor', axis: 'deliveries per second' },
  'integrity-pipeline-rate': {
    title: 'Ingest → queryable with and without the trees',
    axis: 'events per second',
  },
  'integrity-verifier-rate': {
    title: 'The offline verifier against its baselines',
    axis: 'events per second',
  },
  'cluster-rate': { title: 'Single node and cluster: rates', axis: 'events per second' },
  'cluster-latency': { title: 'Single node and cluster: p99 latency', axis: 'ms (p99)' },
  'retention-rate': { title: 'Retention purge against its floor', axis: 'events removed per second' },
  'retention-load': {
    title: 'Retention purge: p99 of the load beside it, idle, during the floor and the purge',
    axis: 'ms (p99)',
  },
};

/**
 * A horizontal bar chart, one group of bars per point and one bar per value name, as SVG. Vega-Lite lays it out
 * and Vega renders it without a browser; the same points always give the same bytes, so the page's check can
 * compare them.
 */
export async function barChartSvg(name: string, points: ChartPoint[]): Promise<string> {
  const chart = chartTitles[name];
  if (!chart) throw new Error(`no chart named ${name}: add it to chartTitles`);
  const values = points.flatMap((p) =>
    Object.entries(p.values).map(([series, value]) => ({ label: p.label, series, value })),
  );
  const spec: TopLevelSpec = {
    title: chart.title,
    width: 480,
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'label', type: 'nominal', sort: null, title: null, axis: { labelLimit: 320 } },
      yOffset: { field: 'series', sort: null },
      x: { field: 'value', type: 'quantitative', title: chart.axis },
      color: { field: 'series', sort: null, title: null, legend: { orient: 'bottom' } },
      tooltip: [{ field: 'series' }, { field: 'value', format: ',' }],
    },
    config: { font: 'sans-serif', background: 'white' },
  };
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return `${await view.toSVG()}\n`;
  } finally {
    view.finalize();
  }
}
