import { validation } from '@githost/errors';
import type { NextFunction, Request, Response } from 'express';

/** Where in a parsed JSON value the first NUL character is (in a string or a key), as a field
 *  name (`title`, `files[2].path`); undefined when there is none. Walked with a stack of its own,
 *  never by recursion: request data must not decide how deep the call stack goes. */
export function fieldWithNul(value: unknown, at = ''): string | undefined {
  // Depth first in document order (pending values are pushed in reverse); a key that holds NUL
  // is pushed as already found, above its value, so it is reported where the walk reaches it.
  const pending: { value: unknown; name: string; found?: true }[] = [{ value, name: at }];
  while (pending.length > 0) {
    const { value: v, name, found } = pending.pop()!;
    if (found) return name;
    if (typeof v === 'string') {
      if (v.includes('\0')) return name || 'body';
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) pending.push({ value: v[i], name: `${name}[${i}]` });
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const childName = name ? `${name}.${key}` : key;
        pending.push({ value: child, name: childName });
        if (key.includes('\0')) pending.push({ value: undefined, name: childName, found: true });
      }
    }
  }
  return undefined;
}

/** Postgres text cannot hold NUL, and no field of ours means one: refused before any handler. */
export function refuseNulInBody(req: Request, _res: Response, next: NextFunction): void {
  const field = fieldWithNul(req.body);
  if (field) next(validation(`${field.replace(/\0/g, '\\0')} must not contain NUL characters`));
  else next();
}
