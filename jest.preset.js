// Shared jest setup: TypeScript through swc, native ESM (run with --experimental-vm-modules),
// and workspace packages resolved to their sources through the "development" export condition.
const summaryReporter = new URL('./scripts/jest-summary-reporter.cjs', import.meta.url).pathname;

export default {
  reporters: ['default', summaryReporter],
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['development', 'node', 'node-addons'] },
  extensionsToTreatAsEsm: ['.ts', '.tsx'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
    // The web's templates (JSX, preact's automatic runtime); any workspace that loads the web needs it.
    '^.+\\.tsx$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022', transform: { react: { runtime: 'automatic', importSource: 'preact' } } }, module: { type: 'es6' } }],
  },
  testMatch: ['**/*.test.ts', '**/*.test.tsx'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60000,
  // A handle left open after a failed start-up must fail that suite, not hang the whole run until
  // CI's time runs out; `--detectOpenHandles` still finds such leaks locally.
  forceExit: true,
};
