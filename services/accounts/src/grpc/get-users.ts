import { validation } from '@githost/errors';
import type { accounts } from '@githost/protos';
import type { UserService } from '../domain/users.js';
import { userMessage } from './messages.js';

/** Enough for any page of merge requests or comments; more is a caller bug. */
const MAX_IDS = 1000;

/** GetUsers: the users with the given ids; unknown ids are left out. */
export function getUsers(users: UserService) {
  return async (req: accounts.GetUsersRequest__Output): Promise<accounts.GetUsersResponse> => {
    if (req.ids.length > MAX_IDS) throw validation(`At most ${MAX_IDS} ids per request`);
    return { users: (await users.byIds(req.ids.filter((id) => id !== ''))).map(userMessage) };
  };
}
