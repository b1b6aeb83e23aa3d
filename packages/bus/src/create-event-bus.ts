import type { Logger } from '@githost/logging';
import { InProcessEventBus } from './in-process-bus.js';
import type { EventBus } from './event-bus.js';
import { RabbitMqEventBus, type RabbitMqBusOptions } from './rabbitmq-bus.js';

export interface CreateEventBusOptions extends Partial<Omit<RabbitMqBusOptions, 'url'>> {
  /** AMQP_URL: RabbitMQ when set, the in-process bus when absent (embedded mode, CONTRACT §2). */
  amqpUrl?: string;
  /** GITHOST_EVENTS_EXCHANGE; default `githost.events`. */
  exchange?: string;
  logger?: Logger;
  /** The in-process bus only: publishes wait until its open() (InProcessBusOptions.held). */
  held?: boolean;
}

export function createEventBus(opts: CreateEventBusOptions = {}): EventBus {
  const { amqpUrl, held, ...rest } = opts;
  if (amqpUrl) return new RabbitMqEventBus({ ...rest, url: amqpUrl });
  return new InProcessEventBus(opts.logger, { held });
}
