import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import amqp from 'amqplib';

export const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const run = promisify(execFile);

/** Names unique to this run, so parallel runs on the shared broker never meet. */
export function uniqueName(what: string): string {
  return `test.webhooks.${what}.${process.pid}.${randomBytes(4).toString('hex')}`;
}

/**
 * Closes, on the broker side, every connection with this client-provided name: what
 * `rabbitmqctl close_all_connections` does, limited to this test's connections so the other
 * suites sharing the broker are not disturbed.
 */
export async function closeConnectionsNamed(name: string): Promise<number> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', '-q', 'pid', 'client_properties']);
  const pids = stdout
    .split('\n')
    .filter((line) => line.includes(`{"connection_name","${name}"}`))
    .map((line) => line.split('\t')[0]!);
  for (const pid of pids) await run('rabbitmqctl', ['close_connection', pid, 'test: broker connection closed']);
  return pids.length;
}

/** Removes what a test declared on the broker. */
export async function deleteTopology(exchange: string, queue: string): Promise<void> {
  const model = await amqp.connect(AMQP_URL);
  try {
    const ch = await model.createChannel();
    for (const q of [queue, `${queue}.dead`]) await ch.deleteQueue(q);
    for (const x of [exchange, `${exchange}.dlx`]) await ch.deleteExchange(x);
    await ch.close();
  } finally {
    await model.close();
  }
}
