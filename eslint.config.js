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

/**
 * The layer rule: below a service's wiring (server.ts, main.ts) only db/ reaches the database;
 * use cases, handlers, HTTP routes, shared homes and read models call a repository. No value
 * import of a model (type-only imports stay allowed), no raw SQL, no model instance written or
 * read again.
 */
const LAYER_RULE_FILES = ['services/*/src/**/*.ts'];
const LAYER_RULE_IGNORES = ['services/*/src/db/**', 'services/*/src/server.ts', 'services/*/src/main.ts'];
const modelImports = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['**/db/models', '**/db/models/**'],
          allowTypeImports: true,
          message:
            'Outside db/ (and the wiring in server.ts), code reaches the database through db/repositories/*.repository.ts.',
        },
      ],
    },
  ],
};
const databaseSyntax = [
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
    // are the database too; a repository's methods (deps.<repository>.<method>) are not, nor
    // node's hashes, ciphers (update) and HTTP requests, sockets and agents (destroy).
    selector:
      "CallExpression[callee.property.name=/^(update|save|destroy|reload|increment|decrement|restore)$/]:not([callee.object.object.name='deps']):not([callee.object.callee.name=/^create(Hash|Hmac)$/]):not([callee.object.name=/^(cipher|decipher|hash|hmac|req|request|socket|stream)$/]):not([callee.object.property.name='agent'])",
    message: 'Model instances are written and read again through db/repositories/*.repository.ts.',
  },
];

/**
 * One event builder per resource (services/<name>/src/events/<resource>.events.ts): an event type
 * written anywhere else in a service that produces events is a hand-built envelope. Notification
 * only consumes them (its catalogue lists what merchants may subscribe to).
 */
const EVENT_PRODUCERS = [
  'services/billing/src/**/*.ts',
  'services/catalog/src/**/*.ts',
  'services/identity/src/**/*.ts',
];
const handBuiltEventType = {
  selector: String.raw`Literal[value=/^(customer|subscription|invoice|refund|checkout\.session|plan|coupon|merchant|credit_note)\.[a-z_]+$/]`,
  message: "Event types are built in the resource's events/<resource>.events.ts builder, nowhere else.",
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
    '!gateway/public/**/*.js',
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
    files: LAYER_RULE_FILES,
    ignores: LAYER_RULE_IGNORES,
    rules: { ...modelImports, 'no-restricted-syntax': ['error', ...databaseSyntax] },
  },
  {
    // Both rules where both apply (a later block's no-restricted-syntax replaces an earlier one's).
    files: EVENT_PRODUCERS,
    ignores: [...LAYER_RULE_IGNORES, 'services/*/src/events/**'],
    rules: { 'no-restricted-syntax': ['error', ...databaseSyntax, handBuiltEventType] },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: nodeGlobals },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The dashboard's browser script (served as is, beside Chart.js's UMD build): a plain script.
    files: ['gateway/public/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { document: 'readonly', window: 'readonly', Intl: 'readonly', Chart: 'readonly' },
    },
  },
]);
