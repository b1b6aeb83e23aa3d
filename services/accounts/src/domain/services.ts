import type { PasswordHasher } from './passwords.js';
import type { ProtectionStore, RepositoryStorage, RepositoryStore, SessionStore, TokenStore, UserStore } from './ports.js';
import type { ShardPlacement } from './placement.js';
import { ProtectionService } from './protections.js';
import { RepositoryService } from './repositories.js';
import { SessionService, type SessionSettings } from './sessions.js';
import { TokenService } from './tokens.js';
import { UserAdministration } from './user-admin.js';
import { UserService } from './users.js';

export interface AccountsServices {
  users: UserService;
  tokens: TokenService;
  admin: UserAdministration;
  repositories: RepositoryService;
  protections: ProtectionService;
  sessions: SessionService;
}

export function createServices(deps: {
  users: UserStore;
  tokens: TokenStore;
  repositories: RepositoryStore;
  protections: ProtectionStore;
  sessions: SessionStore;
  hasher: PasswordHasher;
  sessionSettings?: SessionSettings;
  /** Milliseconds since the epoch; tests move it to reach session expiry. */
  clock?: () => number;
  storage: RepositoryStorage;
  placement: ShardPlacement;
  adminToken: string | undefined;
  onOrphan?: (repositoryId: string, err: unknown) => void;
  onHeadDrift?: (repositoryId: string, err: unknown) => void;
}): AccountsServices {
  const sessions = new SessionService(deps.sessions, deps.hasher, deps.sessionSettings, deps.clock);
  return {
    users: new UserService(deps.users),
    tokens: new TokenService(deps.tokens, deps.adminToken),
    admin: new UserAdministration(deps.users, deps.tokens, (userId) => sessions.endAll(userId)),
    sessions,
    repositories: new RepositoryService(deps.repositories, deps.users, deps.storage, deps.placement, deps.onOrphan, deps.onHeadDrift),
    protections: new ProtectionService(deps.protections),
  };
}
