import amqp from 'amqplib';
import { TEST_AMQP_URL, closeConnectionsNamed, uniqueTestName } from '@githost/bus/testing';

export { closeConnectionsNamed };
export const AMQP_URL = TEST_AMQP_URL;

/** Names unique to this run, so parallel runs on the shared broker never meet. */
export const uniqueName = (what: string): string => uniqueTestName('webhooks', what);

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
