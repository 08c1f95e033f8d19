import { runService } from '@audit/shared/host';
import { loadConfig } from './config.js';
import { custodianService } from './custodian.service.js';

const config = loadConfig(process.env);
await runService('custodian', config.logLevel, (host) => custodianService(host, config));
