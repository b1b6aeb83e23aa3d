import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createLogger, setLogSink } from '@githost/logging';
import { sshAccounts } from '../clients/accounts.js';
import { duplexGit } from '../clients/git-storage.js';
import { loadConfig } from '../config.js';
import { createLimitStores } from '@githost/rate-limits';
import { gitBudget } from '../git-budget.js';
import { lfsAuthentication } from '../lfs-authentication.js';
import type { ServeBackend } from './githost-serve.js';
import type { Settings } from './settings.js';

/**
 * githost-serve's dependencies, built as the SSH service builds its own (src/server.ts), from the
 * settings file read as its environment through the same configuration schema: the same accounts
 * client, git-storage duplex runner and git-lfs-authenticate credential. Logs go to
 * GITHOST_SERVE_LOG_FILE when set and nowhere otherwise: stdout carries git's protocol and stderr
 * reaches the user.
 */
export function openSshBackend(settings: Settings): ServeBackend {
  const config = loadConfig({ ...settings });
  setLogSink({ destination: settings.GITHOST_SERVE_LOG_FILE ? createWriteStream(settings.GITHOST_SERVE_LOG_FILE, { flags: 'a', mode: 0o600 }) : { write: () => true } });
  const logger = createLogger('githost-serve');
  const accounts = sshAccounts(config.accountsGrpcAddress, config.internalSecret);
  const limitStores = createLimitStores({ ...config.rateLimitStore, logger, service: 'ssh' });
  return {
    callerOfKey: (keyId) => accounts.callerByKeyId(keyId, randomUUID()),
    deps: {
      authorize: (principal, owner, name, requestId) => accounts.authorize(principal, owner, name, requestId),
      // One process per command: without REDIS_URL this budget never fills across commands
      // (docs/decisions/openssh-mode.md); with it, it is the gateway's (docs/decisions/shared-rate-limits.md#one-git-budget).
      withinGitBudget: gitBudget(config.gitPerMinute, limitStores),
      runGit: duplexGit(config.gitStorageShards, config.internalSecret),
      lfsAuthentication: lfsAuthentication(config.publicUrl, config.internalSecret),
      newRequestId: randomUUID,
      logger,
    },
    close: () => {
      accounts.close();
      void limitStores.close();
    },
  };
}
