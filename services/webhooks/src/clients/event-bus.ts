import * as busPackage from '@githost/bus';
import type { EventBus } from '@githost/bus';
import type { Logger } from '@githost/logging';
import type { Config } from '../config.js';

type RabbitFactory = (opts: { url: string; exchange: string; logger?: Logger }) => EventBus | Promise<EventBus>;

/**
 * The bus this service uses when the launcher does not hand one in: RabbitMQ when AMQP_URL is
 * set, otherwise the in-process bus. The RabbitMQ factory is looked up by name so this service
 * builds before @githost/bus exports it.
 */
export async function createEventBus(config: Config, logger: Logger): Promise<EventBus> {
  if (!config.AMQP_URL) return new busPackage.InProcessEventBus(logger);
  const factory = (busPackage as unknown as Record<string, unknown>).createRabbitMqEventBus as RabbitFactory | undefined;
  if (typeof factory !== 'function') throw new Error('webhooks: AMQP_URL is set but @githost/bus has no RabbitMQ event bus');
  return factory({ url: config.AMQP_URL, exchange: config.GITHOST_EVENTS_EXCHANGE, logger });
}
