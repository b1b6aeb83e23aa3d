import { randomBytes } from 'node:crypto';
import { Api } from '../api.js';
import type { RunningService } from '../service.js';

/** A user with a password and a web session: the session's secret is both the pages' cookie and
 *  the API's bearer token (as big-pages signs in), and git's password. */
export interface SignedIn {
  username: string;
  api: Api;
  cookie: Record<string, string>;
  bearer: Record<string, string>;
  gitUrl(repo: string): string;
}

export async function signIn(service: RunningService, prefix: string): Promise<SignedIn> {
  const admin = new Api(service.url, service.adminToken);
  const username = `${prefix}${randomBytes(3).toString('hex')}`;
  const password = `bench-${randomBytes(8).toString('hex')}`;
  await admin.expect(201, 'POST', '/api/admin/users', { username, email: `${username}@bench.example`, password });
  const { secret } = await new Api(service.url).expect<{ secret: string }>(201, 'POST', '/api/sessions', { username, password });
  return {
    username,
    api: new Api(service.url, secret),
    cookie: { cookie: `githost_session=${encodeURIComponent(secret)}` },
    bearer: { authorization: `Bearer ${secret}` },
    gitUrl(repo: string): string {
      const u = new URL(service.url);
      u.username = username;
      u.password = secret;
      u.pathname = `/${username}/${repo}.git`;
      return u.toString();
    },
  };
}
