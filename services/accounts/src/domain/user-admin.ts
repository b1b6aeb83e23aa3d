import { conflict, notFound, validation } from '@githost/errors';
import { parseUpdateUser } from './input.js';
import type { Page, Paged } from './paging.js';
import type { TokenRecord, TokenStore, UserStore } from './ports.js';
import type { Caller, User } from './types.js';
import { requireSiteAdmin } from './users.js';

const NAME_SHAPE = /^[A-Za-z0-9._-]{1,100}$/;
const TOKEN_ID_SHAPE = /^[0-9A-Za-z-]{1,64}$/;

/**
 * README "Users and tokens", site-admin side: list, change, suspend and delete users, list and
 * revoke anyone's tokens. Every operation answers 403 `Forbidden` to anyone else before reading
 * its input (CONTRACT §9 Access).
 */
export class UserAdministration {
  constructor(
    private readonly users: UserStore,
    private readonly tokens: TokenStore,
    /** Ends every session of a user (README "Sessions"); suspension calls it. */
    private readonly endSessions: (userId: string) => Promise<void> = async () => undefined,
  ) {}

  async list(caller: Caller, page: Page): Promise<Paged<User>> {
    requireSiteAdmin(caller);
    return this.users.list(page);
  }

  /** A site admin cannot suspend or demote themselves: the last admin would lock everyone out. */
  async update(caller: Caller, username: string, body: unknown): Promise<User> {
    requireSiteAdmin(caller);
    const changes = parseUpdateUser(body);
    const user = await this.existing(username);
    if (user.id === caller.user_id && changes.suspended === true) throw validation('You cannot suspend yourself');
    if (user.id === caller.user_id && changes.is_admin === false) throw validation('You cannot remove your own site admin rights');
    const updated = await this.users.update(user.id, changes);
    if (!updated) throw notFound('User not found');
    // A suspended user's sessions stop authenticating at once anyway (the lookup checks
    // suspension); ending them means unsuspending does not bring them back.
    if (changes.suspended === true) await this.endSessions(user.id);
    return updated;
  }

  /** GitHub's rule: a user who owns repositories cannot be deleted until they are moved or deleted. */
  async remove(caller: Caller, username: string): Promise<void> {
    requireSiteAdmin(caller);
    const user = await this.existing(username);
    if (user.id === caller.user_id) throw validation('You cannot delete yourself');
    const result = await this.users.remove(user.id);
    if (result === 'owns_repositories') throw conflict('User owns repositories');
    if (result === 'not_found') throw notFound('User not found');
  }

  async listTokens(caller: Caller, username: string): Promise<TokenRecord[]> {
    requireSiteAdmin(caller);
    return this.tokens.listForUser((await this.existing(username)).id);
  }

  async revokeToken(caller: Caller, username: string, tokenId: string): Promise<void> {
    requireSiteAdmin(caller);
    const user = await this.existing(username);
    if (!TOKEN_ID_SHAPE.test(tokenId) || !(await this.tokens.revoke(tokenId, user.id))) throw notFound('Token not found');
  }

  private async existing(username: string): Promise<User> {
    const user = NAME_SHAPE.test(username) ? await this.users.byUsername(username) : null;
    if (!user) throw notFound('User not found');
    return user;
  }
}
