import type { connectNats, Migration, openDatabase } from '@billing/platform';
import { dropDatabases, TEST_DATABASE_URL, TEST_NATS_URL, uniqueRunId } from './databases';
import { heavyPlatform } from './platform-processes';

/** A fresh database with `migrations` and a fresh JetStream stream, for tests of event plumbing. */
export interface EventTestbed {
  runId: string;
  stream: string;
  subjectPrefix: string;
  sequelize: Awaited<ReturnType<typeof openDatabase>>;
  nats: Awaited<ReturnType<typeof connectNats>>;
  /** Another fresh stream (name and subject prefix end in `_${suffix}`), deleted by close(). */
  addStream(suffix: string): Promise<{ stream: string; subjectPrefix: string }>;
  /** Deletes the streams and drops the database. */
  close(): Promise<void>;
}

export async function openEventTestbed(label: string, migrations: Migration[]): Promise<EventTestbed> {
  const runId = uniqueRunId(label);
  const stream = `${label.toUpperCase()}_${runId}`;
  const subjectPrefix = `events_${runId}`;
  // Loaded here, not with the package: see heavyPlatform (platform-processes.ts).
  const {
    connectNats,
    createLogger,
    databaseEnvSchema,
    databaseOptionsFrom,
    ensureDatabase,
    ensureEventStream,
    openDatabase,
    parseConfig,
  } = await heavyPlatform();
  await ensureDatabase(TEST_DATABASE_URL, `${runId}_db`);
  // The database settings of this environment, as a service of the platform would take them.
  const config = parseConfig(databaseEnvSchema, { ...process.env, DATABASE_URL: TEST_DATABASE_URL });
  const sequelize = await openDatabase({
    ...databaseOptionsFrom(config, `${label}-test`),
    database: `${runId}_db`,
    models: [],
    migrations,
    logger: createLogger(`${label}-test`, 'silent'),
  });
  const nats = await connectNats(TEST_NATS_URL, `${label}-test`);
  await ensureEventStream(nats, stream, subjectPrefix);
  const streams = [stream];
  return {
    runId,
    stream,
    subjectPrefix,
    sequelize,
    nats,
    async addStream(suffix) {
      const added = { stream: `${stream}_${suffix}`, subjectPrefix: `${subjectPrefix}_${suffix}` };
      await ensureEventStream(nats, added.stream, added.subjectPrefix);
      streams.push(added.stream);
      return added;
    },
    async close() {
      const jsm = await nats.jetstreamManager();
      for (const name of streams) await jsm.streams.delete(name).catch(() => undefined);
      await nats.drain();
      await sequelize.close();
      await dropDatabases(runId);
    },
  };
}
