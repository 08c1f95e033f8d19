import { afterAll, beforeAll } from 'vitest';
import { topics } from '@audit/shared';
import { uniqueNames } from './names.js';
import { cleanUp, ingestService, projectorService, testClickHouse, testKafka } from './stack.js';

/**
 * Ingest and projector as real processes on the test's own topics and database, started before the file's
 * tests and removed after them.
 */
export function pipelineFixture(label: string, projectorEnv: Record<string, string> = {}) {
  const names = uniqueNames(label);
  const fixture = {
    names,
    ingest: ingestService(names),
    projector: projectorService(names, projectorEnv),
    ch: testClickHouse(names),
    kafka: testKafka(),
    topics: topics(names.topicPrefix, 1),
  };
  beforeAll(async () => {
    await fixture.ingest.start();
    await fixture.projector.start();
  });
  afterAll(async () => {
    await fixture.ingest.stop();
    await fixture.projector.stop();
    await fixture.ch.close();
    await cleanUp(names);
  });
  return fixture;
}
