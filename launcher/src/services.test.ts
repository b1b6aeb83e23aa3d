import { describe, expect, it } from '@jest/globals';
import { asServiceModule, STAGES } from './services.js';

describe('service modules', () => {
  it('when a package does not export createServer and loadConfig yet, then it is not runnable', () => {
    expect(asServiceModule({})).toBeUndefined();
    expect(asServiceModule({ loadConfig: () => ({}) })).toBeUndefined();
    expect(asServiceModule(undefined)).toBeUndefined();
  });

  it('when it does, then it is used as is', () => {
    const mod = { loadConfig: () => ({}), createServer: () => ({ start: async () => ({}), stop: async () => undefined }) };
    expect(asServiceModule(mod)).toBe(mod);
  });

  it('when services start, then each stage only needs addresses from the stages before it', () => {
    expect(STAGES.map((stage) => stage.map((s) => s.name))).toEqual([['git-storage'], ['accounts'], ['browse', 'merge-requests', 'webhooks']]);
    const storage = STAGES[0]![0]!.exports({ httpPort: 1001, grpcPort: 1002 });
    expect(storage).toEqual({ GIT_STORAGE_GRPC_ADDR: '127.0.0.1:1002', GIT_STORAGE_HTTP_URL: 'http://127.0.0.1:1001' });
    expect(STAGES[1]![0]!.exports({ httpPort: 2001 })).toEqual({ ACCOUNTS_HTTP_URL: 'http://127.0.0.1:2001' });
  });
});
