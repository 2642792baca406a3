/**
 * The structural rules of the code (docs/decisions.md, "How a service is laid out"), checked by
 * `npm run lint` and by deploy/test/dependency-rules.test.ts. ESLint's layer rule (eslint.config.js)
 * says what a file may do with the database; these say which files may import which.
 */
const SERVICE = '^services/([^/]+)/src/';
/** The services laid out by resource (docs/decisions.md): use cases in usecases/<resource>/. */
const LAID_OUT =
  '^services/(analytics|billing|catalog|documents|identity|notification|policy|portal|sandbox-provider)/src/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'An import circle hides which module is the rule and which the caller: break it by moving the shared part.',
      severity: 'error',
      from: { path: '^(services|gateway|packages|deploy)/' },
      to: { circular: true },
    },
    {
      name: 'use-case-imports-use-case',
      comment:
        "A use case is one operation: it reaches another's work only through a named shared home " +
        '(billing: invoicing/, subscription-changes/, scheduling/, read-models/, events/, domain/; ' +
        'catalog: checkout/, coupon-redemptions/, tax-rates/, read-models/, events/, domain/; ' +
        'identity: access/, provisioning/, seller-details/, events/; notification: delivery/, registration/, emails/; ' +
        'sandbox-provider: customers/, resources/, webhooks/; documents: billing/, rendering/; ' +
        'portal: browser-sessions/, configurations/, subscriptions/, actions/, clients/; analytics: read-model/, events/, domain/), never through its module.',
      severity: 'error',
      from: { path: `${LAID_OUT}usecases/` },
      to: { path: `${LAID_OUT}usecases/` },
    },
    {
      name: 'only-use-cases-in-usecases',
      comment: 'usecases/<resource>/ holds use cases only (*.usecase.ts); what several share lives in a named home.',
      severity: 'error',
      from: { path: `${LAID_OUT}` },
      to: { path: `${LAID_OUT}usecases/`, pathNot: `${LAID_OUT}usecases/[a-z-]+/[a-z-]+\\.usecase\\.ts$` },
    },
    {
      name: 'shared-home-imports-use-case',
      comment:
        'Shared machinery serves use cases; it never calls one back. Entry points are not homes and may call ' +
        "use cases: handlers/, catalog's, documents' and portal's http/ (hosted pages) and workflows/ (whose steps call use cases).",
      severity: 'error',
      from: {
        path:
          `${SERVICE}(invoicing|subscription-changes|scheduling|read-models|events|domain|db` +
          '|checkout|coupon-redemptions|tax-rates|access|provisioning|seller-details|delivery|registration|emails|customers|resources|webhooks' +
          '|billing|rendering|browser-sessions|configurations|subscriptions|actions|clients|read-model)/',
      },
      to: { path: `${SERVICE}usecases/` },
    },
    {
      name: 'domain-is-pure',
      comment: 'domain/ holds pure rules: no database, no events, no use cases, no network.',
      severity: 'error',
      from: { path: `${SERVICE}domain/` },
      to: {
        path: [
          `${SERVICE}(?!domain/)`,
          '^node_modules/(sequelize|sequelize-typescript|@grpc|nats|@nats-io|express|pg)/',
        ],
      },
    },
    {
      name: 'only-handlers-use-handlers',
      comment: 'Handlers are entry points: nothing below them imports one.',
      severity: 'error',
      from: { path: `${SERVICE}(?!handlers/|server\\.ts)` },
      to: { path: `${SERVICE}handlers/` },
    },
    {
      name: 'no-service-imports-another',
      comment: 'Services talk over gRPC and events, never by importing each other.',
      severity: 'error',
      from: { path: SERVICE },
      to: { path: '^(services/[^/]+/src/|gateway/src/)', pathNot: '^services/$1/src/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
  },
};
