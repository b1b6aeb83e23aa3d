import path from 'node:path';
import { env, loadConfig as load, z } from '@githost/config';

const optional = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

const schema = z
  .object({
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: optional.pipe(z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL').optional()),
    HTTP_PORT: env.port(3201),
    GRPC_PORT: env.port(3202),
    GITHOST_INTERNAL_SECRET: env.internalSecret(),
    // A short bootstrap token would be guessable; it grants site admin.
    GITHOST_ADMIN_TOKEN: optional.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    GIT_STORAGE_GRPC_ADDR: env.address(),
    PUBLIC_URL: z.string().url().default('http://localhost:3000'),
  })
  .transform((e) => ({
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    httpPort: e.HTTP_PORT,
    grpcPort: e.GRPC_PORT,
    internalSecret: e.GITHOST_INTERNAL_SECRET,
    adminToken: e.GITHOST_ADMIN_TOKEN,
    storageAddress: e.GIT_STORAGE_GRPC_ADDR,
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
  }));

export interface Config {
  /** PGlite lives under `<dataDir>/db/accounts` when no databaseUrl is given. */
  dataDir: string;
  databaseUrl: string | undefined;
  httpPort: number;
  grpcPort: number;
  internalSecret: string;
  adminToken: string | undefined;
  /** `host:port` of git-storage's gRPC server. */
  storageAddress: string;
  /** Base of clone URLs, without a trailing slash. */
  publicUrl: string;
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('accounts', schema, environment);
}

export function pgliteDir(config: Config): string {
  return path.join(config.dataDir, 'db', 'accounts');
}
