import { writeFileSync } from 'node:fs';
import { resolveRoutes, type RouteDeps } from '../http/route';
import { v1Resources } from '../routes/v1';
import { buildOpenApiDocument } from './document';

/**
 * Building the document reads the routes' specs only: their handlers, the only users of these
 * clients, never run. Every client method throws all the same, so a route that called one
 * while being built would fail loudly instead of reaching for a service.
 */
const HANDLERS_NOT_CALLED = new Proxy({} as RouteDeps, {
  get: (_deps, client) =>
    new Proxy(
      {},
      {
        get: (_client, method) => () => {
          throw new Error(`${String(client)}.${String(method)} called while building the OpenAPI document`);
        },
      },
    ),
});

/** Every route the gateway mounts, as the document generator sees them. */
export const routeTable = () => resolveRoutes(v1Resources, HANDLERS_NOT_CALLED);

/**
 * The document the gateway serves at /openapi.json, built from the route table alone (no
 * services, no database), for `npm run lint:openapi` and gateway/test/openapi-document.test.ts.
 */
export const routeTableDocument = (publicUrl = 'http://localhost:8080') =>
  buildOpenApiDocument(routeTable(), publicUrl);

// `node gateway/dist/openapi/route-table-document.js <file>` writes it (npm run lint:openapi).
if (require.main === module) {
  const [file] = process.argv.slice(2);
  if (!file) throw new Error('usage: route-table-document.js <output file>');
  writeFileSync(file, `${JSON.stringify(routeTableDocument(), null, 2)}\n`);
}
