import neostandard from 'neostandard'

// docs/testing.md: neostandard, and the import rules of §2.2 per folder. The regexes match relative imports
// that climb to a top-level folder (`../../storage/x.js`), not same-named subfolders such as core/services/ingest.
const top = (...dirs) => ({ regex: `^(\\.\\./)+(${dirs.join('|')})/` })

export default [
  ...neostandard({ ts: true, ignores: ['node_modules/**', 'data/**', 'dist/**', '.helpers/**'] }),
  {
    files: ['core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [top('api', 'ingest', 'storage', 'bin', 'protocols', 'simulator'), { group: ['fastify', 'aedes', 'bullmq', 'pg', '@electric-sql/pglite', 'ioredis', 'prom-client'] }] }] }
  },
  {
    files: ['protocols/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [top('core', 'storage', 'api', 'ingest', 'bin', 'simulator')] }] }
  },
  {
    // The package reader's words are the application model's, not a device protocol's: its one vocabulary file
    // imports core's pure domain modules (docs/decisions/0026-package-reader.md); nothing else of core.
    files: ['protocols/app-package/vocabulary.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [top('storage', 'api', 'ingest', 'bin', 'simulator'), { regex: '^(\\.\\./)+core/(?!domain/|schemas/)' }] }] }
  },
  {
    files: ['api/**/*.ts', 'ingest/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [top('storage', 'bin', 'simulator')] }] }
  },
  {
    files: ['storage/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [top('api', 'ingest', 'bin', 'simulator')] }] }
  },
  {
    // The metrics implementations (prom-client) know the core's port and nothing else of ours.
    files: ['metrics/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [top('api', 'ingest', 'storage', 'bin', 'protocols', 'simulator')] }] }
  },
  {
    // Small functions and files in the service's code (not its tests): past 80 lines a function, or 300 a file, is
    // split along its seams; where a longer one is right, an eslint-disable comment on it says why.
    files: ['{core,storage,api,ingest,protocols,simulator,metrics,bin,bench,console}/**/*.{ts,js,mjs}'],
    rules: {
      'max-lines-per-function': ['error', { max: 80 }],
      'max-lines': ['error', { max: 300 }]
    }
  },
  {
    files: ['simulator/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [top('core', 'storage', 'api', 'ingest', 'bin')] }] }
  }
]
