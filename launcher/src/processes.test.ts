import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@githost/config';
import { processPerService, requireBrokerForProcesses } from './processes.js';

describe('process per service option', () => {
  it('when GITHOST_PROCESS_PER_SERVICE is unset or empty, then every service runs in one process; the option wins over the variable', () => {
    expect([processPerService(undefined, undefined), processPerService(undefined, ''), processPerService(undefined, ' true '), processPerService(undefined, '1'), processPerService(undefined, 'false'), processPerService(false, 'true')]).toEqual([false, false, true, true, false, false]);
  });

  it('when GITHOST_PROCESS_PER_SERVICE is not a boolean, then start-up fails naming it', () => {
    expect(() => processPerService(undefined, 'split')).toThrow(ConfigError);
    expect(() => processPerService(undefined, 'split')).toThrow(/GITHOST_PROCESS_PER_SERVICE/);
  });

  it('when there is no RabbitMQ, then one process per service is refused naming AMQP_URL', () => {
    expect(() => requireBrokerForProcesses(undefined)).toThrow(/GITHOST_PROCESS_PER_SERVICE=true needs AMQP_URL/);
    expect(() => requireBrokerForProcesses('amqp://127.0.0.1')).not.toThrow();
  });
});
