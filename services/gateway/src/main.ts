import { runService } from '@audit/shared/host';
import { loadConfig } from './config.js';
import { gatewayService } from './gateway.service.js';

const config = loadConfig(process.env);
await runService('gateway', config.logLevel, (host) => gatewayService(host, config));
