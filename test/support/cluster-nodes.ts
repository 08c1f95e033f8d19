import { createClickHouse, type ClickHouseClient } from '@audit/shared/platform';
import type { TestNames } from './names.js';
import { clickhouseSettings } from './stack.js';

/** Each server of the cluster tier (CLICKHOUSE_NODE_URLS), in the order given. */
export const NODE_URLS = (process.env.CLICKHOUSE_NODE_URLS ?? '').split(',').filter(Boolean);

export interface ClusterNode {
  url: string;
  /** On the test's database. */
  client: ClickHouseClient;
  /** The shard it serves: its `shard` macro. */
  shard: string;
}

/** A client on each server of the cluster, with the shard it serves; the caller closes them. */
export function clusterNodes(names: TestNames): Promise<ClusterNode[]> {
  return Promise.all(
    NODE_URLS.map(async (url) => {
      const client = createClickHouse({ ...clickhouseSettings(names), url });
      const result = await client.query({
        query: "SELECT substitution FROM system.macros WHERE macro = 'shard'",
        format: 'JSONEachRow',
      });
      const [macro] = await result.json<{ substitution: string }>();
      return { url, client, shard: macro!.substitution };
    }),
  );
}
