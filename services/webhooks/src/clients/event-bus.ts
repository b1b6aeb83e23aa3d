import { createEventBus as createBus, type EventBus } from '@githost/bus';
import type { Logger } from '@githost/logging';
import type { Config } from '../config.js';

/** The bus this service uses when the launcher does not hand one in: RabbitMQ when AMQP_URL is set, else in process. */
export function createEventBus(config: Config, logger: Logger): EventBus {
  return createBus({ amqpUrl: config.amqpUrl, exchange: config.eventsExchange, logger });
}
