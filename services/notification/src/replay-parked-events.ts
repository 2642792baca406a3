import { connectNats, createLogger, openDatabase, ParkedEvents, systemClock } from '@billing/platform';
import { loadNotificationConfig } from './config';
import { notificationMigrations } from './db/migrations';

/**
 * An operator's command (docs/events-and-test-mode.md): publishes parked events to their subjects
 * again, once their cause is fixed, and marks them replayed. With the notification service's
 * environment: `node services/notification/dist/replay-parked-events.js <event id>... | --all`.
 */
async function main(args: string[]): Promise<void> {
  const all = args.includes('--all');
  const eventIds = args.filter((a) => a !== '--all');
  if (all === eventIds.length > 0) {
    process.stderr.write('usage: replay-parked-events.js <event id>... | --all\n');
    process.exit(64);
  }
  const config = loadNotificationConfig();
  const logger = createLogger('notification-replay', config.LOG_LEVEL);
  const sequelize = await openDatabase({
    url: config.DATABASE_URL,
    database: `${config.DATABASE_NAME_PREFIX}_notification`,
    models: [],
    migrations: notificationMigrations,
    logger,
  });
  const nats = await connectNats(config.NATS_URL, 'notification-replay');
  try {
    const count = await new ParkedEvents(sequelize).replay(nats, {
      eventIds: all ? undefined : eventIds,
      now: systemClock.now(),
    });
    process.stdout.write(`${count} parked event(s) published again\n`);
  } finally {
    await nats.drain();
    await sequelize.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
