import { runService } from '@audit/shared/host';
import { loadConfig } from './config.js';
import { dispatcherService } from './dispatcher.service.js';

const config = loadConfig(process.env);
await runService('dispatcher', config.logLevel, (host) => dispatcherService(host, config));
