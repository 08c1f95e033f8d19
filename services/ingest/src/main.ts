import { runService } from '@audit/shared/host';
import { loadConfig } from './config.js';
import { ingestService } from './ingest.service.js';

const config = loadConfig(process.env);
await runService('ingest', config.logLevel, (host) => ingestService(host, config));
