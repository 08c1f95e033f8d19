import { runService } from '@audit/shared/host';
import { loadConfig } from './config.js';
import { exporterService } from './exporter.service.js';

const config = loadConfig(process.env);
await runService('exporter', config.logLevel, (host) => exporterService(host, config));
