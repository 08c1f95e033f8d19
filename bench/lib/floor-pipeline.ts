// The least work a correct delivery needs with this stack, for bench:webhooks to set beside the dispatcher: read
// audit records with kafkajs, decode them (avsc), build and sign the payload, POST it with undici, record every
// attempt in Postgres in writes of 100 and commit the offsets after that, reading on while deliveries run. Left
// out is what the dispatcher adds for its other guarantees: endpoint matching, the zod check of decoded records,
// lanes and deadlines, retries, out-of-order offset tracking, endpoint health, metrics, the SSRF guard. It runs in
// the bench process, as the baseline loop does.
import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import { Pool } from 'undici';
import { auditEventCodec } from '@audit/shared/contract';
import { deliveryPayload, signatureHeaders, signingKey, type DeliveryAttempt } from '@audit/shared/webhooks';

const ROWS_PER_WRITE = 100;

// The dispatcher's columns, in a plain INSERT (no endpoint lock, no conflict handling, no health update).
const INSERT_ATTEMPTS = {
  name: 'floor-insert-attempts',
  text: `
  INSERT INTO webhook_delivery_attempts
    (endpoint_id, event_id, attempt, attempted_at, succeeded, terminal, status_code, error, latency_ms, replay,
     next_attempt_at)
  SELECT * FROM json_to_recordset($1::json) AS (endpoint_id text, event_id uuid, attempt smallint,
    attempted_at timestamptz, succeeded boolean, terminal boolean, status_code smallint, error text,
    latency_ms integer, replay boolean, next_attempt_at timestamptz)`,
};

export interface FloorOptions {
  kafka: Kafka;
  topic: string;
  partitions: number;
  groupId: string;
  origin: string;
  path: string;
  inFlight: number;
  /** Deliveries started and not yet answered, at most (the dispatcher's lane: in flight plus waiting). */
  maxQueued: number;
  endpointId: string;
  secret: string;
  db: pg.Pool;
}

/** Starts delivering every record of the topic from its beginning; resolves with the means to stop. */
export async function floorPipeline(opts: FloorOptions): Promise<{ stop(): Promise<void> }> {
  const codec = auditEventCodec();
  // Requests beyond `inFlight` queue in the pool: at most that many are on the wire, as in the dispatcher's lane.
  const http = new Pool(opts.origin, { connections: opts.inFlight });
  const keys = [signingKey(opts.secret)];
  const deliver = async (value: Buffer): Promise<DeliveryAttempt> => {
    const event = codec.decode(value);
    const body = deliveryPayload(event);
    const started = Date.now();
    const signatures = signatureHeaders(event.event_id, body, keys, Math.floor(started / 1000));
    const res = await http.request({
      path: opts.path,
      method: 'POST',
      headers: { ...signatures, 'content-type': 'application/json', 'user-agent': 'floor' },
      body,
    });
    await res.body.dump();
    return {
      endpoint_id: opts.endpointId,
      event_id: event.event_id,
      attempt: 1,
      attempted_at: new Date(started),
      succeeded: res.statusCode >= 200 && res.statusCode < 300,
      terminal: false,
      status_code: res.statusCode,
      error: null,
      latency_ms: Date.now() - started,
      replay: false,
      next_attempt_at: null,
    };
  };
  // As in the dispatcher, a batch's deliveries are started and the next batch read while they run, so the HTTP pool
  // does not drain between two fetches; at most `maxQueued` are started and unanswered at a time.
  let pending = 0;
  const waiting: (() => void)[] = [];
  const settled = () => {
    pending -= 1;
    if (pending < opts.maxQueued) for (const wake of waiting.splice(0)) wake();
  };
  const room = () => (pending < opts.maxQueued ? undefined : new Promise<void>((r) => waiting.push(r)));
  const record = async (attempts: DeliveryAttempt[]) => {
    for (let i = 0; i < attempts.length; i += ROWS_PER_WRITE) {
      await opts.db.query({
        ...INSERT_ATTEMPTS,
        values: [JSON.stringify(attempts.slice(i, i + ROWS_PER_WRITE))],
      });
    }
  };
  // Per partition, batches are recorded and committed in order, each after its attempts are stored.
  const chains = new Map<number, Promise<void>>();
  let failure: unknown;
  const consumer = opts.kafka.consumer({ groupId: opts.groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: opts.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: opts.partitions,
    eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
      const started: Promise<DeliveryAttempt>[] = [];
      for (const m of batch.messages) {
        await room();
        pending += 1;
        started.push(deliver(m.value!).finally(settled));
      }
      const next = String(BigInt(batch.lastOffset()) + 1n);
      const stored = Promise.all(started).then(record);
      const chain = Promise.all([chains.get(batch.partition), stored])
        .then(() =>
          consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]),
        )
        .catch((err: unknown) => void (failure ??= err));
      chains.set(batch.partition, chain);
      resolveOffset(batch.lastOffset());
      await heartbeat();
    },
  });
  return {
    async stop() {
      // Paused rather than stopped first: a group left can no longer commit what is still being recorded.
      consumer.pause([{ topic: opts.topic }]);
      // A batch fetched before the pause may still start its chain meanwhile: wait until none is new.
      let seen: Promise<void>[];
      do {
        seen = [...chains.values()];
        await Promise.all(seen);
      } while ([...chains.values()].some((chain, i) => chain !== seen[i]));
      await consumer.disconnect();
      await http.close();
      if (failure) throw failure;
    },
  };
}
