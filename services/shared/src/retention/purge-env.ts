import { z } from 'zod';

/** What a purge needs besides the components' settings: on a cluster, each node's address. */
export const purgeNodesEnv = {
  CLICKHOUSE_NODE_URLS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url()))
    .meta({
      description:
        "on a ClickHouse cluster: every node's HTTP interface, comma-separated; a purge deletes on one replica of " +
        'each shard and waits for every replica (docs/retention.md "On a cluster")',
      defaultText: '(empty: one server)',
    }),
};
