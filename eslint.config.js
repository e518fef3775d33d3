// Type-aware promise rules matter most here: a forgotten await in queue code loses messages.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The runtime: what `campaign worker` and `campaign serve` load in production. The sandbox (a
// stand-in Cloud API for the demo and the tests) must never ship inside it: a production
// process that could start it, or share its state, could answer for Meta.
// Everything in src/ but the sandbox itself and the CLI (whose demo and `sandbox` commands start
// it), and the two production entry points.
const RUNTIME = ['src/**/*.ts', 'workers/worker.ts', 'workers/serve.ts'];
const NOT_RUNTIME = ['src/sandbox/**', 'src/cli/**'];
const SANDBOX_MESSAGE =
  'the runtime (worker, serve) must not import src/sandbox: it is the demo and tests’ stand-in for the Cloud API; move what both need out of src/sandbox';
const SANDBOX_IMPORT = { group: ['**/sandbox/*', '**/sandbox/**'], message: SANDBOX_MESSAGE };

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
    files: RUNTIME,
    ignores: NOT_RUNTIME,
    rules: {
      'no-restricted-imports': ['error', { patterns: [SANDBOX_IMPORT] }],
      // import('…') is not an import declaration: no-restricted-imports does not see it.
      'no-restricted-syntax': ['error', { selector: 'ImportExpression[source.value=/(^|\\/)sandbox\\//]', message: SANDBOX_MESSAGE }],
    },
  },
  {
    // Campaign logic (ingest, send, controls) depends on ports, not on the engines behind them:
    // src/redis and src/queue adapt Redis and BullMQ, src/cloud-api the HTTP client. Its options
    // replace the runtime block's for these files, so the sandbox pattern is repeated here.
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
            SANDBOX_IMPORT,
          ],
        },
      ],
    },
  },
  {
    // Small files and functions are units a reviewer can read whole.
    files: ['src/**/*.ts', 'workers/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.{ts,mjs}'],
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
