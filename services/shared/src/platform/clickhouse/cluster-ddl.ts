/**
 * The one schema on a cluster (docs/operations.md "ClickHouse cluster"): every statement the migrations and the
 * projection's tables are written in, for one server, becomes the same statement for a cluster of shards and
 * replicas. A table with a `tenant_id` column is sharded by tenant: its rows live in `<name>_local`, a replicated
 * table on every node, and `<name>` is a `Distributed` table over them, so that every read and write keeps the
 * names it has on one server and one tenant's rows stay on one shard (its list's order, its duplicate checks and
 * its export stay local). A table without one (the projection's state, the migrations' record) is replicated
 * whole on every node under its own name. Views read and fill the local tables of their shard.
 */
export interface ClusterTopology {
  cluster: string;
  database: string;
}

const SHARD_KEY = 'cityHash64(tenant_id)';

/** Where the rows of a sharded table are stored on each node. */
export const localTable = (name: string) => `${name}_local`;

const IDENT = '`?([A-Za-z_][A-Za-z0-9_]*)`?';

/** Index of the parenthesis closing the one at `open`. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") {
      // A string literal: skip to its end (a quote inside is escaped with a backslash).
      for (i++; i < text.length && text[i] !== "'"; i++) if (text[i] === '\\') i++;
    } else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  throw new Error('unbalanced parentheses in a DDL statement');
}

const isSharded = (columns: string) => /(^|[(,\s])tenant_id\s+String\b/.test(columns);

/** The ZooKeeper path of a table's replicas: one per shard for a sharded table, one for the whole cluster else. */
const replicaPath = (t: ClusterTopology, table: string, sharded: boolean) =>
  `'/clickhouse/tables/${sharded ? '{shard}' : 'all'}/${t.database}/${table}'`;

function replicatedEngine(engine: string, args: string, path: string): string {
  return `ENGINE = Replicated${engine}(${[path, "'{replica}'", ...(args.trim() ? [args.trim()] : [])].join(', ')})`;
}

// Every name is qualified: each node runs the statement in its default database, not the sender's.
const qualified = (t: ClusterTopology, name: string) => `${t.database}.${name}`;

export const distributed = (t: ClusterTopology, name: string) =>
  `CREATE TABLE IF NOT EXISTS ${qualified(t, name)} ON CLUSTER ${t.cluster} AS ${qualified(t, localTable(name))}
   ENGINE = Distributed(${t.cluster}, ${t.database}, ${localTable(name)}, ${SHARD_KEY})`;

/**
 * A replicated table drops a block equal to one of its last hundred (insert deduplication: a retried insert is
 * stored once). A summing table's blocks are counts, and two equal counts are two counts (the same hour and value
 * counted in two batches): its replicas keep every block.
 */
function keepEveryBlock(engine: string, clauses: string): string {
  if (engine !== 'SummingMergeTree') return clauses;
  const setting = 'replicated_deduplication_window = 0';
  return /\bSETTINGS\b/.test(clauses) ? `${clauses}, ${setting}` : `${clauses} SETTINGS ${setting}`;
}

function createTable(statement: string, t: ClusterTopology): string[] {
  const head = new RegExp(`^CREATE TABLE IF NOT EXISTS ${IDENT}\\s*\\(`).exec(statement);
  if (!head) throw new Error(`not a statement this schema writes: ${statement.slice(0, 80)}`);
  const name = head[1]!;
  const open = head[0].length - 1;
  const end = closing(statement, open);
  const columns = statement.slice(open, end + 1);
  const engine = /^\s*ENGINE\s*=\s*(\w+)\s*(\()?/.exec(statement.slice(end + 1));
  if (!engine || !/MergeTree$/.test(engine[1]!))
    throw new Error(`table ${name}: a MergeTree engine is expected`);
  let rest = end + 1 + engine[0].length;
  let args = '';
  if (engine[2]) {
    const argsEnd = closing(statement, rest - 1);
    args = statement.slice(rest, argsEnd);
    rest = argsEnd + 1;
  }
  const sharded = isSharded(columns);
  const stored = sharded ? localTable(name) : name;
  const create = `CREATE TABLE IF NOT EXISTS ${qualified(t, stored)} ON CLUSTER ${t.cluster} ${columns}
    ${replicatedEngine(engine[1]!, args, replicaPath(t, stored, sharded))} ${keepEveryBlock(
      engine[1]!,
      statement.slice(rest).trim(),
    )}`.trim();
  return sharded ? [create, distributed(t, name)] : [create];
}

function createView(statement: string, t: ClusterTopology): string[] {
  const m = new RegExp(
    `^CREATE MATERIALIZED VIEW IF NOT EXISTS ${IDENT}\\s+TO\\s+${IDENT}\\s+AS\\s+([\\s\\S]*)$`,
  ).exec(statement);
  if (!m) throw new Error(`not a view this schema writes: ${statement.slice(0, 80)}`);
  const [, view, target, select] = m as unknown as [string, string, string, string];
  const local = select.replace(
    new RegExp(`\\bFROM\\s+${IDENT}`),
    (_, source: string) => `FROM ${qualified(t, localTable(source))}`,
  );
  return [
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${qualified(t, view)} ON CLUSTER ${t.cluster}
     TO ${qualified(t, localTable(target))} AS ${local}`,
  ];
}

/**
 * The statements that do on the cluster what `statement` does on one server. It takes the forms this project's
 * schema is written in (CREATE DATABASE, CREATE TABLE … ENGINE = *MergeTree, CREATE MATERIALIZED VIEW … TO,
 * DROP TABLE, DROP DATABASE) and refuses any other, so that a new form is written for both at once.
 */
export function clusterStatements(statement: string, t: ClusterTopology): string[] {
  const s = statement.trim().replace(/;$/, '');
  const database = new RegExp(`^(CREATE DATABASE IF NOT EXISTS|DROP DATABASE IF EXISTS) ${IDENT}$`).exec(s);
  if (database) return [`${database[1]} ${database[2]} ON CLUSTER ${t.cluster}`];
  const drop = new RegExp(`^DROP TABLE IF EXISTS ${IDENT}$`).exec(s);
  // The local table too, where there is one: a view or an unsharded table has none, and IF EXISTS passes it by.
  if (drop) {
    return [drop[1]!, localTable(drop[1]!)].map(
      (n) => `DROP TABLE IF EXISTS ${qualified(t, n)} ON CLUSTER ${t.cluster}`,
    );
  }
  if (s.startsWith('CREATE TABLE')) return createTable(s, t);
  if (s.startsWith('CREATE MATERIALIZED VIEW')) return createView(s, t);
  throw new Error(`not a statement this schema writes: ${s.slice(0, 80)}`);
}

/**
 * A new sharded table `name` shaped as the local table `like` is (its columns, engine, keys and settings), from
 * that table's `SHOW CREATE TABLE`: `CREATE TABLE … AS` would copy its replicas' ZooKeeper path as well.
 */
export function cloneStatements(
  showCreate: string,
  like: string,
  name: string,
  t: ClusterTopology,
): string[] {
  const head = new RegExp(`^CREATE TABLE ${IDENT}\\.${IDENT}\\s*\\(`).exec(showCreate.trim());
  if (!head || head[2] !== localTable(like)) throw new Error(`not the local table of ${like}`);
  const oldPath = replicaPath(t, localTable(like), true);
  const body = showCreate.trim().slice(head[0].length - 1);
  if (!body.includes(oldPath)) throw new Error(`${like}: its replicas are not at ${oldPath}`);
  const create = `CREATE TABLE IF NOT EXISTS ${qualified(t, localTable(name))} ON CLUSTER ${t.cluster} ${body.replace(
    oldPath,
    replicaPath(t, localTable(name), true),
  )}`;
  return [create, distributed(t, name)];
}
