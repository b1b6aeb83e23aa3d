import { describe, expect, it } from '@jest/globals';
import { haproxyConfig, replicaCount, requireProcessesForReplicas } from './replicas.js';

describe('launcher replicas', () => {
  it('when nothing is asked, then one of each; the option wins over GITHOST_REPLICAS', () => {
    expect([replicaCount(undefined, undefined), replicaCount(undefined, ''), replicaCount(undefined, ' 3 '), replicaCount(2, '5')]).toEqual([1, 1, 3, 2]);
  });

  it.each([['0'], ['9'], ['two'], ['1.5']])('when GITHOST_REPLICAS is %j, then start-up fails naming it', (value) => {
    expect(() => replicaCount(undefined, value)).toThrow(/GITHOST_REPLICAS \(replicas\) must be a whole number from 1 to 8/);
  });

  it('when replicas are asked without a process per service, then start-up fails saying what is needed; so without Postgres', () => {
    expect(() => requireProcessesForReplicas(2, false, 'postgres://db')).toThrow(/GITHOST_REPLICAS above 1 needs GITHOST_PROCESS_PER_SERVICE=true/);
    expect(() => requireProcessesForReplicas(2, true, undefined)).toThrow(/GITHOST_REPLICAS above 1 needs DATABASE_URL/);
    expect(() => requireProcessesForReplicas(1, false, undefined)).not.toThrow();
    expect(() => requireProcessesForReplicas(2, true, 'postgres://db')).not.toThrow();
  });

  it('when two gateways and two browse replicas run, then each section balances them round robin, checked on /readyz', () => {
    const cfg = haproxyConfig([
      { name: 'gateway', port: 3000, bind: '0.0.0.0', servers: [4001, 4002] },
      { name: 'browse', port: 5000, servers: [6001, 6002] },
    ]);
    expect(cfg).toContain(['listen gateway', '  bind 0.0.0.0:3000', '  balance roundrobin', '  option httpchk GET /readyz', '  http-check expect status 200',
      '  server gateway-1 127.0.0.1:4001 check inter 500ms fall 2 rise 1', '  server gateway-2 127.0.0.1:4002 check inter 500ms fall 2 rise 1', 'listen browse', '  bind 127.0.0.1:5000'].join('\n'));
    expect(cfg).toContain('  server browse-2 127.0.0.1:6002 check inter 500ms fall 2 rise 1\n');
    expect(cfg).toMatch(/option redispatch/);
  });
});
