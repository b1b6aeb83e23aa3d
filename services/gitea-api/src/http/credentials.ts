import type { Request } from 'express';
import { unauthenticated } from '@githost/errors';

/**
 * The caller's credential in any of the forms Gitea reads (its API docs, "Authentication"):
 * `Authorization: token X`, `Authorization: Bearer X`, Basic, or the `token` / `access_token`
 * query parameters, as the Authorization header to send the gateway. `token X` and `Bearer X` are
 * the same token for githost; Basic goes on as sent, the gateway reading `user:token` as it does
 * for git (a password is no token there, so Basic `user:password` is refused as Gitea refuses a
 * wrong password: 401). The header wins over the query, as in Gitea. Undefined: anonymous.
 */
export function credentialOf(req: Request): string | undefined {
  const header = req.headers.authorization?.trim();
  if (header) {
    const match = /^(\S+)\s+(\S+)$/.exec(header);
    const scheme = match?.[1]?.toLowerCase();
    if (!match || !scheme) throw unauthenticated('invalid Authorization header');
    if (scheme === 'token' || scheme === 'bearer') return `token ${match[2]}`;
    if (scheme === 'basic') return `Basic ${match[2]}`;
    throw unauthenticated('unsupported Authorization scheme');
  }
  const query = req.query as Record<string, unknown>;
  for (const name of ['token', 'access_token']) {
    const value = query[name];
    if (typeof value === 'string' && value !== '') {
      if (/[\s\0]/.test(value)) throw unauthenticated('invalid token');
      return `token ${value}`;
    }
    if (value !== undefined && typeof value !== 'string') throw unauthenticated(`invalid ${name}`);
  }
  return undefined;
}
