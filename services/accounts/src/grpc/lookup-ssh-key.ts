import { validation } from '@githost/errors';
import type { accounts } from '@githost/protos';
import type { AccountsDeps } from '../domain/deps.js';
import { lookupSshKey } from '../domain/ssh-keys.js';
import { repositoryMessage, userMessage } from './messages.js';

/** LookupSshKey: what a public key authenticates as, for the SSH server (accounts.proto). */
export function lookupSshKeyHandler(deps: AccountsDeps) {
  return async (req: accounts.LookupSshKeyRequest__Output): Promise<accounts.LookupSshKeyResponse> => {
    // Exactly one of the two names the key (accounts.proto LookupSshKeyRequest).
    const byId = Number(req.key_id ?? 0) !== 0;
    if (byId === (req.fingerprint !== '')) throw validation('LookupSshKey takes exactly one of fingerprint and key_id');
    const found = await lookupSshKey(deps, byId ? { key_id: Number(req.key_id) } : { fingerprint: req.fingerprint });
    switch (found.outcome) {
      case 'not_found':
        return { outcome: found.outcome };
      case 'refused':
        return { outcome: found.outcome, key_id: found.key.id };
      case 'user':
        return { outcome: found.outcome, key_id: found.key.id, user: userMessage(found.user) };
      case 'deploy_key':
        return { outcome: found.outcome, key_id: found.key.id, repository: repositoryMessage(found.repository), read_only: found.key.read_only };
    }
  };
}
