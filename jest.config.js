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
  maxWorkers: 2,
};
