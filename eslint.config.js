// ESLint flat config for the whole monorepo: @eslint/js and typescript-eslint recommended rules.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const { defineConfig, globalIgnores } = require('eslint/config');

const nodeGlobals = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  setInterval: 'readonly',
  clearInterval: 'readonly',
  URL: 'readonly',
  fetch: 'readonly',
};

module.exports = defineConfig([
  globalIgnores([
    '**/node_modules/',
    '**/dist/',
    '**/coverage/',
    'packages/proto/src/gen/',
    'packages/sdk/src/generated/',
    'test-artifacts/',
    '.data/',
    // JavaScript is build output here, except these hand-written files.
    '**/*.js',
    '!eslint.config.js',
    '!jest.config.js',
    '!deploy/bootstrap.js',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // `_`-prefixed names are deliberately unused (handler signatures, destructuring).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Use cases, workflows, handlers and HTTP routes reach the database only through repositories
    // (db/repositories): no value import of a model, no raw SQL. Type-only imports of models
    // stay allowed.
    files: [
      'services/*/src/usecases/**',
      'services/*/src/workflows/**',
      'services/*/src/handlers/**',
      'services/*/src/http/**',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db/models', '**/db/models/**'],
              allowTypeImports: true,
              message:
                'Use cases, workflows, handlers and HTTP routes reach the database through db/repositories/*.repository.ts.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='query'][callee.object.property.name='sequelize']",
          message: 'Raw SQL belongs in db/repositories/*.repository.ts; use cases call a repository.',
        },
        {
          selector: "CallExpression[callee.property.name='query'][callee.object.name='sequelize']",
          message: 'Raw SQL belongs in db/repositories/*.repository.ts; use cases call a repository.',
        },
        {
          // A model instance's attributes set in memory: set(key, value, options) or set({...}).
          // A Map's or Headers' set takes two arguments; Express's res.set({...}) is a response.
          selector:
            "CallExpression[callee.property.name='set'][arguments.length=3], CallExpression[callee.property.name='set'][arguments.length=1][arguments.0.type='ObjectExpression']:not([callee.object.name='res'])",
          message: 'Model instances are written through db/repositories/*.repository.ts.',
        },
        {
          // A model instance's own writes and reads (subscription.update(...), session.reload())
          // are the database too; a repository's methods (deps.<repository>.<method>) are not.
          selector:
            "CallExpression[callee.property.name=/^(update|save|destroy|reload|increment|decrement|restore)$/]:not([callee.object.object.name='deps']):not([callee.object.callee.name=/^create(Hash|Hmac)$/])",
          message: 'Model instances are written and read again through db/repositories/*.repository.ts.',
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: nodeGlobals },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
]);
