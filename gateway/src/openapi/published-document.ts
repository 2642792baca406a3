import { writeFileSync } from 'node:fs';
import { resolveRoutes, type RouteDeps } from '../http/route';
import { v1Resources } from '../routes/v1';
import { buildOpenApiDocument } from './document';

/** The `servers` entry of the published document: a gateway started with its defaults (`npm start`). */
export const PUBLISHED_SERVER_URL = 'http://localhost:8080';

/**
 * Building the route table reads no dependency (handlers use them only when called), so a
 * stand-in whose every method throws is enough to build the document offline.
 */
const offlineDeps = new Proxy({} as RouteDeps, {
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

/**
 * The document GET /openapi.json serves (the same route table, the same builder), without
 * starting a gateway: what the SDK (packages/sdk) is generated from.
 */
export function publishedOpenApiDocument(): ReturnType<typeof buildOpenApiDocument> {
  return buildOpenApiDocument(resolveRoutes(v1Resources, offlineDeps), PUBLISHED_SERVER_URL);
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
