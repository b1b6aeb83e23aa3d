import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import amqp from 'amqplib';

/** Test helpers for suites that use the real RabbitMQ on this machine (not for production code). */
export const TEST_AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

const run = promisify(execFile);

/** Names unique to this run, so parallel runs on the shared broker never meet. */
export function uniqueTestName(scope: string, what: string): string {
  return `test.${scope}.${what}.${process.pid}.${randomBytes(4).toString('hex')}`;
}

/**
 * Removes what one test run declared on the shared RabbitMQ: the exchange and its dead-letter
 * exchange, each queue and its dead-letter queue, so runs leave nothing behind.
 */
export async function removeBrokerTopology(url: string, exchange: string, queues: string[]): Promise<void> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    for (const queue of queues.flatMap((q) => [q, `${q}.dead`])) await channel.deleteQueue(queue);
    for (const name of [exchange, `${exchange}.dlx`]) await channel.deleteExchange(name);
    await channel.close();
  } finally {
    await connection.close();
  }
}

/**
 * Closes, on the broker side, every connection whose client-provided name is `name`: what
 * `rabbitmqctl close_all_connections` does, limited to one test's connections so the other
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
