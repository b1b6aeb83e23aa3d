import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatSettings, type Settings } from './settings.js';

/** The file `npm start` writes under DATA_DIR for OpenSSH mode (services/ssh/README.md#openssh-mode). */
export const SETTINGS_FILE_NAME = 'openssh.env';

/**
 * The variables githost-keys and githost-serve read: those of the SSH service's own configuration
 * (services/ssh/src/config.ts) that say where accounts and git-storage are, how to sign, the
 * public URL for git-lfs-authenticate and the git budget (and where it is counted), plus the git user's name.
 */
export const SETTINGS_NAMES = [
  'ACCOUNTS_GRPC_ADDR',
  'GITHOST_INTERNAL_SECRET',
  'GIT_STORAGE_HTTP_URL',
  'GIT_STORAGE_HTTP_SHARDS',
  'PUBLIC_URL',
  'GITHOST_GIT_RATE_LIMIT_PER_MINUTE',
  'REDIS_URL',
  'GITHOST_RATE_LIMIT_PREFIX',
  'GITHOST_SSH_USER',
] as const;

/** The settings of a running githost, taken from the environment its services were started with. */
export function settingsOf(env: NodeJS.ProcessEnv): Settings {
  const out: Settings = {};
  for (const name of SETTINGS_NAMES) {
    const value = env[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/**
 * Writes `<dataDir>/openssh.env` for the services just started (their loopback addresses and
 * internal secret are new on every start), 0600 and whole (written aside, then renamed), so a
 * githost-keys reading it meanwhile reads the old or the new file, never half of one.
 */
export function writeSettingsFile(dataDir: string, env: NodeJS.ProcessEnv): string {
  const file = path.join(dataDir, SETTINGS_FILE_NAME);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, formatSettings(settingsOf(env)), { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
  return file;
}
