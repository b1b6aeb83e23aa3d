import amqp from 'amqplib';

/** Removes what one test run declared on the shared RabbitMQ (its exchange, dead-letter exchange,
 *  queue and dead-letter queue), so runs leave nothing behind. */
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
