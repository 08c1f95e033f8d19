import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { KafkaSettings } from '../config/components.js';
import type { Logger } from '../logger.js';

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

// Warnings about choices we made on purpose (see producer.ts); repeated at every start they would only hide others.
const DELIBERATE = new Set(['Limiting retries for the idempotent producer may invalidate EoS guarantees']);

export function createKafka(settings: KafkaSettings, logger: Logger, clientSuffix = ''): Kafka {
  const kafkaLog = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId: `${settings.clientId}${clientSuffix}`,
    brokers: settings.brokers,
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        const { message, ...rest } = log;
        if (DELIBERATE.has(message)) return;
        kafkaLog[LEVELS[level] ?? 'info'](rest, message);
      },
    connectionTimeout: 3000,
    requestTimeout: 30_000,
    retry: { initialRetryTime: 300, retries: 8, maxRetryTime: 5000 },
  });
}
