import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The published packages are imported by their names, from their TypeScript sources as tsconfig.json's `paths`
// map them for tsc and tsx (their own exports name the build that npm publishes).
const packagesDir = fileURLToPath(new URL('packages/', import.meta.url));
const sourcePackages = [
  ...readdirSync(packagesDir).map((name) => ({
    find: new RegExp(`^@audit-trail/${name}$`),
    replacement: `${packagesDir}${name}/src/index.ts`,
  })),
  // The verifier's browser entry (its exports' `./web`).
  {
    find: /^@audit-trail\/integrity-verifier\/web$/,
    replacement: `${packagesDir}integrity-verifier/src/web.ts`,
  },
];

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
  resolve: { alias: sourcePackages },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // A hang guard, not a speed goal: in `npm test` this tier runs beside the containers tier's image builds,
          // where a test of a second or two (rendering every benchmark chart) has taken several times vitest's 5 s.
          testTimeout: 30_000,
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
        extends: true,
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
        extends: true,
        // What only a cluster has, on infra/cluster's (scripts/test-cluster.sh).
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          ...againstServers,
        },
      },
      {
        extends: true,
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
