// Type-aware promise rules matter most here: a forgotten await in queue code loses messages.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'reports/**', 'bin/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Campaign logic (ingest, send, controls) depends on ports, not on the engines behind them:
    // src/redis and src/queue adapt Redis and BullMQ, src/cloud-api the HTTP client.
    files: ['src/campaigns/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'bullmq', message: 'campaign logic talks to the queue through a port (src/queue adapts BullMQ)' },
            { name: 'ioredis', message: 'campaign logic talks to Redis through the ledger port (src/redis implements it)' },
            { name: 'undici', message: 'campaign logic sends through MessageSender (src/cloud-api implements it)' },
          ],
          patterns: [
            { group: ['**/redis/*', '**/queue/*'], message: 'campaign logic must not reach into the adapters; depend on its ports' },
          ],
        },
      ],
    },
  },
  {
    // Small files and functions are units a reviewer can read whole.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.{ts,mjs}'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
  {
    files: ['eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Build scripts are plain Node outside the TypeScript project: linted without type information.
    files: ['scripts/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { URL: 'readonly', process: 'readonly', console: 'readonly' },
    },
  },
);
