import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { unavailable } from '@githost/errors';
import { callUnary } from '@githost/grpc';
import { createLogger, setLogSink } from '@githost/logging';
import { createAccountsClient, type accounts } from '@githost/protos';
import { sshCallerOf } from '../commands/index.js';
import type { ServeBackend } from './githost-serve.js';
import { required, type Settings } from './settings.js';

const TIMEOUT_MS = 5_000;

/**
 * githost-serve's dependencies, from the settings file. Logs go to GITHOST_SERVE_LOG_FILE when
 * set and nowhere otherwise: stdout carries git's protocol and stderr reaches the user.
 * Running git waits for the SSH service's git-storage client (branch ssh-server): until then a
 * git command answers that git is unavailable.
 */
export function openSshBackend(settings: Settings, file: string): ServeBackend {
  const client = createAccountsClient(required(settings, 'ACCOUNTS_GRPC_ADDR', file), required(settings, 'GITHOST_INTERNAL_SECRET', file));
  setLogSink({ destination: settings.GITHOST_SERVE_LOG_FILE ? createWriteStream(settings.GITHOST_SERVE_LOG_FILE, { flags: 'a', mode: 0o600 }) : { write: () => true } });
  const notYet = () => Promise.reject(unavailable('githost: git over OpenSSH mode is not available yet'));
  return {
    async callerOfKey(keyId) {
      const res = await callUnary<accounts.LookupSshKeyRequest, accounts.LookupSshKeyResponse__Output>(client, client.LookupSshKey, { key_id: keyId }, { requestId: randomUUID(), timeoutMs: TIMEOUT_MS });
      return sshCallerOf(res);
    },
    deps: {
      authorize: notYet,
      withinGitBudget: async () => true,
      runGit: notYet,
      lfsAuthentication: () => {
        throw unavailable('githost: git-lfs-authenticate over OpenSSH mode is not available yet');
      },
      newRequestId: randomUUID,
      logger: createLogger('githost-serve'),
    },
    close: () => client.close(),
  };
}
