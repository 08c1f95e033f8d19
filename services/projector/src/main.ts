import { runService } from '@audit/shared/host';
import { loadConfig } from './config.js';
import { projectorService } from './projector.service.js';

const config = loadConfig(process.env);
await runService('projector', config.logLevel, (host) => projectorService(host, config));
