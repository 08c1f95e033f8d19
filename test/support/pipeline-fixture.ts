import { afterAll, beforeAll } from 'vitest';
import { topics } from '@audit/shared/contract';
import { uniqueNames } from './names.js';
import { migratedPostgres, postgresUrlOf } from './postgres.js';
import { cleanUp, ingestService, projectorService, testClickHouse, testKafka } from './stack.js';

/**
 * Ingest and projector as real processes on the test's own topics and database, started before the file's
 * tests and removed after them. With `trees`, the projector appends the tenants' trees (docs/integrity.md "Who
 * appends") into a Postgres database of the test's own, made and migrated before it starts.
 */
export function pipelineFixture(
  label: string,
  projectorEnv: Record<string, string> = {},
  { trees = false }: { trees?: boolean } = {},
) {
  const names = uniqueNames(label);
  const databaseUrl = postgresUrlOf(names);
  let postgres: Awaited<ReturnType<typeof migratedPostgres>> | undefined;
  const fixture = {
    names,
    databaseUrl,
    ingest: ingestService(names),
    projector: projectorService(names, {
      ...(trees && { PROJECTOR_TREES: 'true', DATABASE_URL: databaseUrl }),
      ...projectorEnv,
    }),
    ch: testClickHouse(names),
    kafka: testKafka(),
    topics: topics(names.topicPrefix, 1),
  };
  beforeAll(async () => {
    if (trees) postgres = await migratedPostgres(names);
    await fixture.ingest.start();
    await fixture.projector.start();
  });
  afterAll(async () => {
    await fixture.ingest.stop();
    await fixture.projector.stop();
    await fixture.ch.close();
    await cleanUp(names);
    await postgres?.drop();
  });
  return fixture;
}
