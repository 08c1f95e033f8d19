import { runService } from '@audit/shared/host';
import { loadConfig } from './config.js';
import { notaryService } from './notary.service.js';

const config = loadConfig(process.env);
await runService('notary', config.logLevel, (host) => notaryService(host, config));
