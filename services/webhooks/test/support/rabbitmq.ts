import { TEST_AMQP_URL, closeConnectionsNamed, removeBrokerTopology, uniqueTestName } from '@githost/bus/testing';

export { closeConnectionsNamed };
export const AMQP_URL = TEST_AMQP_URL;

/** Names unique to this run, so parallel runs on the shared broker never meet. */
export const uniqueName = (what: string): string => uniqueTestName('webhooks', what);

/** Removes what a test declared on the broker. */
export const deleteTopology = (exchange: string, queue: string): Promise<void> => removeBrokerTopology(AMQP_URL, exchange, [queue]);
