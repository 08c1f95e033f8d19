import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.data/**', 'node_modules/**', 'packages/*/dist/**', 'dist/**'] },
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
);
