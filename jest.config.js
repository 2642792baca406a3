/** One jest run for the whole monorepo; workspace packages resolve to their built dist/. */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  testMatch: [
    '<rootDir>/{packages,services,gateway,deploy}/**/test/**/*.test.ts',
    '<rootDir>/{packages,services,gateway,deploy}/**/src/**/*.spec.ts',
  ],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60_000,
  // One suite at a time per jest process. `npm test` runs two such processes, the lanes
  // (`--shard=1/2` and `--shard=2/2`, split by the sequencer), one per core: the
  // timing-critical suites one after another in lane 1 (docs/decisions.md, "How the suite is
  // laid out").
  maxWorkers: 1,
  testSequencer: '<rootDir>/packages/testing/dist/jest/lane-sequencer.js',
  reporters: ['default', '<rootDir>/packages/testing/dist/jest/suite-timings-reporter.js'],
  globalSetup: '<rootDir>/packages/testing/dist/jest/shared-platform-setup.js',
  globalTeardown: '<rootDir>/packages/testing/dist/jest/shared-platform-teardown.js',
};
