import { defineConfig } from 'vitest/config';

// Tests against real servers, one file at a time, with services they start as processes: those run compiled,
// built once for the run (docs/testing.md).
const againstServers = {
  testTimeout: 300_000,
  hookTimeout: 180_000,
  globalSetup: ['test/support/compiled-services.global-setup.ts'],
  setupFiles: ['test/support/compiled-services.setup.ts'],
  pool: 'forks' as const,
  poolOptions: { forks: { singleFork: true } },
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'services/*/src/**/*.unit.test.ts',
            'packages/*/src/**/*.unit.test.ts',
            'infra/local/**/*.unit.test.ts',
            'scripts/**/*.unit.test.ts',
            'test/support/**/*.unit.test.ts',
          ],
        },
      },
      {
        test: {
          name: 'int',
          include: [
            'services/*/src/**/*.int.test.ts',
            'packages/*/src/**/*.int.test.ts',
            'test/int/**/*.int.test.ts',
            'test/e2e/**/*.test.ts',
          ],
          ...againstServers,
        },
      },
      {
        // What only a cluster has, on infra/cluster's (scripts/test-cluster.sh).
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          ...againstServers,
        },
      },
      {
        // The compose files and the images built here, under Podman (scripts/test-containers.sh).
        test: {
          name: 'containers',
          include: ['test/containers/**/*.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 900_000,
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
