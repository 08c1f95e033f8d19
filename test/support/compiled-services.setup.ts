import { inject } from 'vitest';
import { runServicesCompiledFrom } from './service-process.js';

// Every service process of the test file runs from the run's compiled build (compiled-services.global-setup.ts).
runServicesCompiledFrom(inject('servicesApp'));
