import { validation } from '@githost/errors';
import type { accounts } from '@githost/protos';
import type { AccountsDeps } from '../domain/deps.js';
import { findUsers } from '../domain/users.js';
import { userMessage } from './messages.js';

/** Enough for any page of merge requests or comments; more is a caller bug. */
const MAX_IDS = 1000;

/** GetUsers: the users with the given ids or usernames (exact), each once; unknown ones are left out. */
export function getUsers(deps: AccountsDeps) {
  return async (req: accounts.GetUsersRequest__Output): Promise<accounts.GetUsersResponse> => {
    const usernames = req.usernames ?? [];
    if (req.ids.length + usernames.length > MAX_IDS) throw validation(`At most ${MAX_IDS} ids and usernames per request`);
    const found = await findUsers(deps, req.ids.filter((id) => id !== ''), usernames.filter((name) => name !== ''));
    return { users: found.map(userMessage) };
  };
}
