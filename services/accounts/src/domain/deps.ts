import type { PasswordHasher, ProtectionStore, RepositoryStorage, RepositoryStore, SessionStore, SshKeyStore, TokenStore, UserStore } from './ports.js';
import type { OAuthApplicationStore } from './oauth-applications.js';
import type { ShardPlacement } from './placement.js';
import type { OAuthAccessTokenLookup } from './tokens.js';
import { DEFAULT_SESSION_SETTINGS, warmSignIn, type SessionSettings } from './sessions.js';

/**
 * What the accounts use cases read through: the stores and git-storage (`ports.ts`) and the
 * settings they apply. Each use case takes only the part it uses (`Pick<AccountsDeps, …>`).
 */
export interface AccountsDeps {
  users: UserStore;
  tokens: TokenStore;
  repositories: RepositoryStore;
  protections: ProtectionStore;
  sessions: SessionStore;
  sshKeys: SshKeyStore;
  oauthApplications: OAuthApplicationStore;
  /** The OAuth2 provider's access tokens (docs/decisions/oauth2-provider.md#tokens); absent: none authenticate. */
  oauthAccessTokens?: OAuthAccessTokenLookup;
  hasher: PasswordHasher;
  sessionSettings: SessionSettings;
  /** Milliseconds since the epoch; tests move it to reach session expiry. */
  clock: () => number;
  storage: RepositoryStorage;
  placement: ShardPlacement;
  /** The bootstrap admin's token (ADMIN_TOKEN), when configured. */
  adminToken: string | undefined;
  /** Told when undoing a half-created repository failed too, so an operator can clean up. */
  onOrphan: (repositoryId: string, err: unknown) => void;
  /** Told when HEAD could not be put back after a default-branch change failed to commit. */
  onHeadDrift: (repositoryId: string, err: unknown) => void;
}

/** The deps with their defaults filled in; the sign-in's dummy hash is made now, before the first sign-in. */
export function accountsDeps(given: Omit<AccountsDeps, 'sessionSettings' | 'clock' | 'onOrphan' | 'onHeadDrift'> & Partial<AccountsDeps>): AccountsDeps {
  const deps: AccountsDeps = {
    ...given,
    sessionSettings: given.sessionSettings ?? DEFAULT_SESSION_SETTINGS,
    clock: given.clock ?? Date.now,
    onOrphan: given.onOrphan ?? (() => undefined),
    onHeadDrift: given.onHeadDrift ?? (() => undefined),
  };
  warmSignIn(deps.hasher);
  return deps;
}
