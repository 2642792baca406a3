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
  // One suite at a time: each integration suite runs a whole platform, and two of them on two
  // cores made timing-sensitive tests flaky in CI; serial costs about 110 s (575 s vs 466 s).
  maxWorkers: 1,
};
