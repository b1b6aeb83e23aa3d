import { describe, expect, it } from '@jest/globals';
import { loadConfig, pgliteDir } from './config.js';

const base = { GITHOST_INTERNAL_SECRET: 'a-secret-of-16-chars', GIT_STORAGE_GRPC_ADDR: 'storage:3102' };

describe('config', () => {
  it('when only the required variables are set, then the defaults apply', () => {
    const config = loadConfig(base);
    expect(config).toEqual({
      dataDir: './data',
      databaseUrl: undefined,
      httpPort: 3201,
      grpcPort: 3202,
      internalSecret: 'a-secret-of-16-chars',
      adminToken: undefined,
      storageAddress: 'storage:3102',
      publicUrl: 'http://localhost:3000',
    });
    expect(pgliteDir(config)).toBe('data/db/accounts');
  });

  it('when everything is set, then it is read, empty optional values count as unset and PUBLIC_URL loses its trailing slash', () => {
    const config = loadConfig({ ...base, DATA_DIR: '/srv', DATABASE_URL: '', GITHOST_ADMIN_TOKEN: '', HTTP_PORT: '0', GRPC_PORT: '9', PUBLIC_URL: 'https://git.example.com/' });
    expect(config).toMatchObject({ dataDir: '/srv', databaseUrl: undefined, adminToken: undefined, httpPort: 0, grpcPort: 9, publicUrl: 'https://git.example.com' });
  });

  it('when values are bad, then loading fails naming each variable', () => {
    expect(() => loadConfig({ GITHOST_INTERNAL_SECRET: 'short', HTTP_PORT: 'x', GITHOST_ADMIN_TOKEN: 'tiny', DATABASE_URL: 'mysql://h/db' })).toThrow(
      /HTTP_PORT[\s\S]*GITHOST_INTERNAL_SECRET: must be at least 16 characters[\s\S]*GITHOST_ADMIN_TOKEN: must be at least 16 characters[\s\S]*GIT_STORAGE_GRPC_ADDR/,
    );
    expect(() => loadConfig({ ...base, DATABASE_URL: 'mysql://h/db' })).toThrow('DATABASE_URL: expected a postgres:// URL');
  });
});
