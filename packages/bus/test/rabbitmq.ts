import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

export const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const run = promisify(execFile);

/** Names unique to this test run, so parallel runs on the shared broker never meet. */
export function uniqueName(what: string): string {
  return `test.bus.${what}.${process.pid}.${randomBytes(4).toString('hex')}`;
}

/** A plain amqplib connection for looking at what the bus did (DLQ contents, message properties). */
export async function openAdmin(): Promise<{ model: ChannelModel; ch: Channel }> {
  const model = await amqp.connect(AMQP_URL);
  const ch = await model.createChannel();
  return { model, ch };
}

/** Closes, on the broker side, every connection whose client-provided name is `name`. */
export async function closeConnectionsNamed(name: string): Promise<number> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', '-q', 'pid', 'client_properties']);
  const pids = stdout
    .split('\n')
    .filter((line) => line.includes(`{"connection_name","${name}"}`))
    .map((line) => line.split('\t')[0]!);
  for (const pid of pids) await run('rabbitmqctl', ['close_connection', pid, 'test: broker connection closed']);
  return pids.length;
}
