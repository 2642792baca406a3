/**
 * Whether an error says the database could not be reached or went away under the query: the
 * server refused or dropped the connection, is shutting down, starting or recovering from a crash
 * (SQLSTATE class 08 and 57P01..57P03), or the pool could not get a connection in time. The
 * request may succeed on a retry once the server is back, so it is answered UNAVAILABLE (503 with
 * Retry-After at the gateway, docs/api-behaviour.md §1), not as a fault of ours.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  // Sequelize wraps the driver's error (`parent`, `original`); pg's own errors carry the SQLSTATE.
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { name, code, message } = e as { name?: unknown; code?: unknown; message?: unknown };
    // ConnectionError, ConnectionRefusedError, ConnectionTimedOutError, HostNotReachableError,
    // ConnectionAcquireTimeoutError, ...: no connection to run the query on.
    if (typeof name === 'string' && name.startsWith('SequelizeConnection')) return true;
    if (typeof name === 'string' && name === 'SequelizeHostNotFoundError') return true;
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
    if (typeof code === 'string' && SOCKET_ERRORS.has(code)) return true;
    if (typeof message === 'string' && DROPPED_CONNECTION.test(message)) return true;
    const next = e as { parent?: unknown; original?: unknown; cause?: unknown };
    e = next.parent ?? next.original ?? next.cause;
  }
  return false;
}

/** admin_shutdown, crash_shutdown, cannot_connect_now (starting up, or in recovery). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03']);

const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** What node-postgres says of a connection that ended under a query (it sets no code). */
const DROPPED_CONNECTION = /^Connection terminated|connection error and is not queryable/;
