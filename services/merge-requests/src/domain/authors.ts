import type { UserDirectory } from './ports.js';

/** Looks the authors up once per response, not once per record. */
export async function usernamesOf(users: UserDirectory, ids: Array<string | null>): Promise<(id: string | null) => string | null> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  const found = wanted.length > 0 ? await users.getUsers(wanted) : new Map();
  return (id) => (id === null ? null : (found.get(id)?.username ?? null));
}
