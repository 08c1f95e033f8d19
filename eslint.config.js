import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The architecture's boundaries (docs/architecture.md "Modules"): each deployable stands alone, the shared kernel
// is imported through its named modules, each module only from the ones below it, and the domain stays pure.
const SERVICES = ['custodian', 'dispatcher', 'exporter', 'gateway', 'ingest', 'notary', 'ops', 'projector'];
/** Each module of `@audit/shared` and the modules it may import. */
const SHARED_MODULES = {
  platform: [],
  contract: ['platform'],
  'audit-topic': ['platform', 'contract'],
  projection: ['platform', 'contract'],
  'api-keys': ['platform'],
  webhooks: ['platform', 'contract'],
  'export-jobs': ['platform', 'contract', 'projection'],
  integrity: ['platform'],
  migrations: ['platform', 'projection'],
  host: ['platform', 'contract', 'audit-topic'],
  tenants: ['platform'],
  retention: ['platform', 'contract', 'projection', 'export-jobs'],
  reports: ['platform', 'contract', 'projection', 'integrity'],
};
const TESTS = ['**/*.test.ts'];
const intoServices = (names, message) => ({ regex: `^(\\.\\./)+(${names.join('|')})/src/`, message });
/** The published packages are imported by their names, as their users import them. */
const intoPackages = {
  regex: '^(\\.\\./)+packages/',
  message: 'Import a published package by its name (@audit-trail/…), not by path.',
};
/** What a service may import: no other service, and the shared kernel only by its modules. */
const serviceImports = (service) => ({
  paths: [{ name: '@audit/shared', message: 'Import a named module: @audit/shared/platform, /contract, …' }],
  patterns: [
    intoServices(
      [...SERVICES.filter((s) => s !== service), 'shared'],
      'A service imports no other service, and the shared kernel only by its modules (@audit/shared/…).',
    ),
    intoPackages,
  ],
});
/** What a domain folder may not import besides: it is pure (no adapter, no driver, no I/O). */
const domainImports = {
  paths: [
    {
      name: 'node:net',
      importNames: ['connect', 'createConnection', 'createServer', 'Server', 'Socket'],
      message: 'The domain opens no connection: that is an adapter (isIP and BlockList are pure).',
    },
  ],
  patterns: [
    { regex: '(^|/)adapters/', message: 'The domain imports no adapter: it is pure.' },
    {
      group: [
        'pg',
        'kafkajs',
        '@clickhouse/client',
        'fastify',
        'undici',
        '@aws-sdk/*',
        'prom-client',
        'pino',
        'node:fs',
        'node:fs/*',
        'node:http',
        'node:https',
        'node:child_process',
        '@audit/shared/host',
        '@audit/shared/migrations',
      ],
      message: 'The domain imports no driver and does no I/O: that is an adapter.',
    },
  ],
};
const boundaries = [
  ...SERVICES.flatMap((service) => {
    const own = serviceImports(service);
    return [
      { files: [`services/${service}/src/**/*.ts`], rules: { 'no-restricted-imports': ['error', own] } },
      // One object's options replace another's for the same rule: the domain's carry the service's too.
      {
        files: [`services/${service}/src/domain/**/*.ts`],
        ignores: TESTS,
        rules: {
          'no-restricted-imports': [
            'error',
            {
              paths: [...own.paths, ...domainImports.paths],
              patterns: [...own.patterns, ...domainImports.patterns],
            },
          ],
        },
      },
    ];
  }),
  ...Object.entries(SHARED_MODULES).map(([module, below]) => ({
    files: [`services/shared/src/${module}/**/*.ts`],
    ignores: TESTS,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            intoServices(SERVICES, 'The shared kernel imports no service.'),
            intoPackages,
            {
              group: ['@audit/shared', '@audit/shared/*'],
              message: 'Inside the shared kernel, import by path.',
            },
            ...(Object.keys(SHARED_MODULES).some((m) => m !== module && !below.includes(m))
              ? [
                  {
                    regex: `^(\\.\\./)+(${Object.keys(SHARED_MODULES)
                      .filter((m) => m !== module && !below.includes(m))
                      .join('|')})/`,
                    message: `@audit/shared/${module} may import only ${below.join(', ') || 'nothing of ours'}.`,
                  },
                ]
              : []),
          ],
        },
      ],
    },
  })),
  { files: ['test/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [intoPackages] }] } },
  // The viewer runs in a browser (docs/viewer.md): no Node module, nothing of the services', and no way to turn
  // text into markup (its page's Trusted Types refuse that too).
  {
    files: ['services/gateway/viewer/src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^node:', message: 'The viewer runs in a browser.' },
            {
              regex: '^(@audit/|(\\.\\./)+(src|shared)/)',
              message: 'The viewer reads the API, not our code.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "JSXAttribute[name.name='dangerouslySetInnerHTML'], MemberExpression[property.name=/^(innerHTML|outerHTML)$/]",
          message: 'An event holds text: render it as text, never as markup.',
        },
      ],
    },
  },
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: TESTS,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@audit/*', '@audit-trail/*'],
              message: 'A published package imports nothing of ours.',
            },
            {
              regex: '^(\\.\\./)+(services|test|bench|scripts)/',
              message: 'A published package imports nothing of ours.',
            },
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  {
    ignores: [
      '.data/**',
      'node_modules/**',
      'packages/*/dist/**',
      'dist/**',
      'services/gateway/viewer-dist/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through loadConfig(env).' },
      ],
    },
  },
  {
    files: [
      'services/*/src/main.ts',
      'services/*/src/cli.ts',
      'scripts/**',
      'test/**',
      'infra/local/**/*.test.ts',
      'bench/**',
      'vitest.config.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  ...boundaries,
);
