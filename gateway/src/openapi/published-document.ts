import { writeFileSync } from 'node:fs';
import { resolveRoutes, type RouteDeps } from '../http/route';
import { v1Resources } from '../routes/v1';
import { buildOpenApiDocument } from './document';

/** The `servers` entry of the published document: a gateway started with its defaults (`npm start`). */
export const PUBLISHED_SERVER_URL = 'http://localhost:8080';

/**
 * Building the document reads the routes' specs only: their handlers, the only users of these
 * clients, never run. Every client method throws all the same, so a route that called one
 * while being built would fail loudly instead of reaching for a service.
 */
const HANDLERS_NOT_CALLED = new Proxy({} as RouteDeps, {
  get: (_target, dependency) =>
    new Proxy(
      {},
      {
        get: (_dep, method) => () => {
          throw new Error(`${String(dependency)}.${String(method)} called while building the OpenAPI document`);
        },
      },
    ),
});

/** Every route the gateway mounts, as the document generator sees them. */
export const routeTable = () => resolveRoutes(v1Resources, HANDLERS_NOT_CALLED);

/**
 * The document GET /openapi.json serves (the same route table, the same builder), without
 * starting a gateway or any service: what the SDK (packages/sdk) is generated from, what
 * `npm run lint:openapi` lints and gateway/test/openapi-document.test.ts checks.
 */
export function publishedOpenApiDocument(): ReturnType<typeof buildOpenApiDocument> {
  return buildOpenApiDocument(routeTable(), PUBLISHED_SERVER_URL);
}

/** The document as the SDK commits it (packages/sdk/openapi.json): two-space JSON and a final newline. */
export const publishedOpenApiJson = (): string => `${JSON.stringify(publishedOpenApiDocument(), null, 2)}\n`;

// `node gateway/dist/openapi/published-document.js <file>` writes it (npm run sdk:generate).
if (require.main === module) {
  const [file] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node published-document.js <output file>\n');
    process.exit(64);
  }
  writeFileSync(file, publishedOpenApiJson());
}
