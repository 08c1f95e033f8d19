import type { FastifyInstance } from 'fastify';
import type { Admin } from 'kafkajs';
import pg from 'pg';
import { createClickHouse, type ClickHouseClient } from '../platform/clickhouse/clickhouse-client.js';
import type { ClickHouseSettings, KafkaSettings } from '../platform/config/components.js';
import { registerErrorHandling } from '../platform/http/error-handler.js';
import type { ReadinessCheck } from '../platform/http/health.plugin.js';
import { createHttpServer } from '../platform/http/server.js';
import { createServiceApp } from '../platform/http/service-app.js';
import type { CoalescingSenderOptions } from '../platform/kafka/coalescing-sender.js';
import { DurableProducer } from '../platform/kafka/producer.js';
import { createLogger, loggableError, type Logger } from '../platform/logger.js';
import { registerMetricsRoute } from '../platform/metrics/http-metrics.plugin.js';
import { createMetrics, type Registry } from '../platform/metrics/metrics.registry.js';
import { Startup } from '../platform/startup.js';
import { kafkaDeployment } from '../contract/bootstrap.js';
import { auditEventCodec } from '../contract/codec/audit-event.codec.js';
import { systemClock } from '../contract/time.js';
import { auditPublisher, type AuditPublisher } from '../audit-topic/audit-publisher.js';
import { AuditTopicRoute } from '../audit-topic/audit-topic.route.js';

export interface Listener {
  host: string;
  port: number;
}

export interface ServiceHostOptions {
  name: string;
  logLevel: string;
  /** Tests pass a logger of their own. */
  logger?: Logger;
  /** What ends the process when the service cannot go on; tests pass one that throws. */
  exit?: (code: number) => never;
}

/**
 * What every service runs in: its logger, metrics and start-up, the clients it connects with, its listeners, and a
 * shutdown that stops everything started in the reverse order it started (what started last, and so depends on
 * what came before it, stops first). A service is a function of a host, so a test runs it without a process.
 */
export interface ServiceHost {
  readonly name: string;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly startup: Startup;
  /** True from the moment the shutdown begins. */
  stopping(): boolean;
  /** Runs at the shutdown, before everything registered earlier. */
  onStop(stop: () => unknown): void;
  /** A start-up step, retried until its dependency answers (`Startup.step`). */
  step<T>(what: string, step: () => Promise<T>): Promise<T>;
  /** Ends the start-up: from now on every route answers and `/readyz` runs its checks. */
  finish(fields?: Record<string, unknown>): void;
  /** Logs why the service cannot go on and ends the process: no retry makes it right, a new process starts clean. */
  fatal(err: unknown, message: string): never;
  /** A Postgres pool whose idle connections may fail (a Postgres restart) without ending the process. */
  postgres(config: pg.PoolConfig): pg.Pool;
  clickhouse(
    settings: ClickHouseSettings,
    timeoutMs?: number,
    options?: { keepAlive?: boolean },
  ): ClickHouseClient;
  /** The deployment's Kafka client and topics, with a producer and an admin, connected by `connect`. */
  kafka(settings: KafkaSettings): KafkaClients;
  /**
   * The internal listener: `/metrics`, and with checks `/healthz`, `/readyz` and the HTTP metrics. It listens
   * before the dependencies answer: `/healthz` says alive, `/readyz` what the start-up waits for
   * (registerStartupGate).
   */
  serveInternal(at: Listener, checks?: Record<string, ReadinessCheck>): Promise<FastifyInstance>;
  /** Listens with an app of the service's own, closed at the shutdown. */
  listen(app: FastifyInstance, at: Listener, listener?: string): Promise<void>;
  /** Stops everything registered, the latest first. */
  stop(): Promise<void>;
}

export interface KafkaClients extends Omit<ReturnType<typeof kafkaDeployment>, 'ensureTopics'> {
  producer: DurableProducer;
  admin: Admin;
  /** The audit topic's writable generation: it moves when the topic grows (docs/topic-growth.md). */
  auditTopic: AuditTopicRoute;
  /** The start-up steps: the missing topics made, the producer and the admin connected, the audit topic found. */
  connect(): Promise<void>;
  /** A publisher of the service's own audit events to the audit topic, within the bounds of `queue`. */
  auditLog(queue: CoalescingSenderOptions): AuditPublisher;
}

export function createServiceHost(options: ServiceHostOptions): ServiceHost {
  const { name } = options;
  const logger = options.logger ?? createLogger(name, options.logLevel);
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const metrics = createMetrics(name);
  const startup = new Startup(logger);
  const stops: (() => unknown)[] = [];
  let stopping = false;
  let stopRun: Promise<void> | undefined;

  let stopped = false;
  const onStop = (stop: () => unknown) => {
    // Something a start-up step still in flight started after the shutdown ran: stopped at once.
    if (stopped)
      void Promise.resolve()
        .then(stop)
        .catch((err: unknown) => logger.warn({ err: loggableError(err) }, 'a late stop failed'));
    else stops.push(stop);
  };
  const listen = async (app: FastifyInstance, at: Listener, listener?: string) => {
    onStop(() => app.close());
    await app.listen({ host: at.host, port: at.port });
    logger.info({ host: at.host, port: at.port }, `${name} ${listener ? `${listener} ` : ''}listening`);
  };

  return {
    name,
    logger,
    metrics,
    startup,
    stopping: () => stopping,
    onStop,
    step: (what, step) => startup.step(what, step),
    finish(fields = {}) {
      startup.finish();
      logger.info(fields, `${name} running`);
    },
    fatal(err, message) {
      logger.fatal({ err: loggableError(err) }, message);
      return exit(1);
    },
    postgres(config) {
      const pool = new pg.Pool({ connectionTimeoutMillis: 5000, ...config });
      pool.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));
      onStop(() => pool.end());
      return pool;
    },
    clickhouse(settings, timeoutMs, options) {
      const client = createClickHouse(settings, settings.database, timeoutMs, options);
      onStop(() => client.close());
      return client;
    },
    kafka(settings) {
      const { kafka, topics, ensureTopics } = kafkaDeployment(settings, logger, `-${name}`);
      const producer = new DurableProducer(kafka);
      const admin = kafka.admin();
      const auditTopic = new AuditTopicRoute(admin, topics.auditEvents.name, { logger });
      onStop(() => Promise.all([producer.disconnect(), admin.disconnect()]));
      const connect = async () => {
        await startup.step('kafka', ensureTopics);
        await startup.step('kafka', () => producer.connect());
        await startup.step('kafka', () => admin.connect());
        await startup.step('kafka', () => auditTopic.refresh());
      };
      const auditLog = (queue: CoalescingSenderOptions) =>
        auditPublisher({ producer, topic: auditTopic, codec: auditEventCodec(), clock: systemClock, queue });
      return { kafka, topics, producer, admin, auditTopic, connect, auditLog };
    },
    async serveInternal(at, checks) {
      // A metrics-only listener stands beside a service's own app, which measures its requests.
      const app = checks
        ? createServiceApp(logger, { metrics, startup, readiness: checks })
        : createHttpServer(logger);
      if (!checks) registerErrorHandling(app);
      // Unauthenticated like the health endpoints: the listener is internal (loopback by default).
      registerMetricsRoute(app, metrics);
      await listen(app, at, checks ? undefined : 'metrics');
      return app;
    },
    listen,
    stop() {
      stopRun ??= (async () => {
        stopping = true;
        startup.stop();
        // The latest first, also one registered while the others stop.
        for (let stop = stops.pop(); stop; stop = stops.pop()) await stop();
        stopped = true;
      })();
      return stopRun;
    },
  };
}
