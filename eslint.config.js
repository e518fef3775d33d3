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

// The edges (the CLI, the HTTP API, the pages) call the application layer (src/app) and render
// what it returns. Nothing below an edge imports the CLI, and the API and the pages meet only in
// src/app, src/http and the domain: a change to one edge's output cannot change another's.
const CLI_MESSAGE = 'src/api, src/app, src/campaigns and src/dashboard must not import src/cli (an edge); move what both need to src/app';
/** Our own folder by a relative path; a package's subpath (`@bull-board/api/…`) is not ours. */
const ownFolder = (folder) => `^(\\.\\.?/)+(src/)?${folder}/`;
const CLI_IMPORT = { regex: ownFolder('cli'), message: CLI_MESSAGE };
const DASHBOARD_IMPORT = {
  regex: ownFolder('dashboard'),
  message: 'the HTTP API must not import the pages (src/dashboard); share through src/app or src/http',
};
const API_IMPORT = {
  regex: ownFolder('api'),
  message: 'the pages must not import the HTTP API (src/api); share through src/app or src/http',
};
/** import('…') is not an import declaration: no-restricted-imports does not see it. The sandbox anywhere, fenced folders by relative path. */
const dynamicImportOf = (folders, message) => ({
  selector: `ImportExpression[source.value=/(^|\\/)sandbox\\/|^(\\.\\.?\\/)+(src\\/)?(${folders.join('|')})\\//]`,
  message,
});
/** The sandbox rule plus the fences of one folder; a later block's options replace an earlier one's, so each block names all. */
const fenced = (files, patterns, folders) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: [SANDBOX_IMPORT, ...patterns] }],
    'no-restricted-syntax': ['error', dynamicImportOf(folders, `${SANDBOX_MESSAGE}; ${CLI_MESSAGE}`)],
  },
});

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
  fenced(['src/app/**/*.ts'], [CLI_IMPORT], ['cli']),
  fenced(['src/api/**/*.ts'], [CLI_IMPORT, DASHBOARD_IMPORT], ['cli', 'dashboard']),
  fenced(['src/dashboard/**/*.ts'], [CLI_IMPORT, API_IMPORT], ['cli', 'api']),
  {
    // The pages' browser code, bundled for the browser (scripts/bundle-pages.mjs) and type-checked
    // with the DOM's types (its tsconfig.json), which also has Node's for the server modules it
    // shares: nothing of Node's may reach a page. The dashboard's fences are repeated (a later
    // block's options replace an earlier one's).
    files: ['src/dashboard/browser/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            SANDBOX_IMPORT,
            CLI_IMPORT,
            API_IMPORT,
            { regex: '^node:', message: "the pages' code runs in a browser: Node's modules are not there" },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', 'module', '__dirname', '__filename', 'global', 'setImmediate'].map((name) => ({
          name,
          message: "the pages' code runs in a browser: Node's globals are not there",
        })),
      ],
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
            CLI_IMPORT,
          ],
        },
      ],
      'no-restricted-syntax': ['error', dynamicImportOf(['cli'], `${SANDBOX_MESSAGE}; ${CLI_MESSAGE}`)],
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
