import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const user = typeof process.getuid === 'function' ? process.getuid() : userInfo().username;

/** Where the runner keeps what it starts itself: per OS user, outside the repository. */
export const STATE_DIR = join(tmpdir(), `billing-platform-${user}`);

/**
 * The embedded cluster's data directory. Not inside STATE_DIR: when we run as root, initdb runs
 * as the unprivileged `postgres` user, which must be able to create this directory itself.
 */
export const POSTGRES_DATA_DIR = join(tmpdir(), `billing-platform-pg-${user}`);
