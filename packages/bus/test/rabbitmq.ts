import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { migrate, openDatabase, type Database } from '@githost/db';
import { OUTBOX_MIGRATION_SQL } from '../src/index.js';
import { TEST_AMQP_URL, closeConnectionsNamed, uniqueTestName } from '../src/testing.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export { closeConnectionsNamed };
export const AMQP_URL = TEST_AMQP_URL;

/** Names unique to this test run, so parallel runs on the shared broker never meet. */
export const uniqueName = (what: string): string => uniqueTestName('bus', what);

/** A plain amqplib connection for looking at what the bus did (DLQ contents, message properties). */
export async function openAdmin(): Promise<{ model: ChannelModel; ch: Channel }> {
  const model = await amqp.connect(AMQP_URL);
  const ch = await model.createChannel();
  return { model, ch };
}

/** A proxy of this test's own in front of the shared broker, and the broker URL through it. */
export async function brokerBehindProxy(): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(AMQP_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5672) });
  target.port = String(proxy.port);
  return { proxy, url: target.toString() };
}

/** An outbox in an in-memory PGlite, and the broker behind a proxy of its own: what the outage tests publish through. */
export async function outboxBehindProxy(): Promise<{ db: Database; proxy: TcpProxy; url: string; close(): Promise<void> }> {
  const db = await openDatabase({ schema: 'svc' });
  await migrate(db, [{ version: 1, name: 'outbox', sql: OUTBOX_MIGRATION_SQL }]);
  const { proxy, url } = await brokerBehindProxy();
  return {
    db,
    proxy,
    url,
    async close() {
      await proxy.close();
      await db.close();
    },
  };
}
