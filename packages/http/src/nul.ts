import { validation } from '@githost/errors';
import type { NextFunction, Request, Response } from 'express';

/** Where in a parsed JSON value the first NUL character is (in a string or a key), as a field
 *  name (`title`, `files[2].path`); undefined when there is none. */
export function fieldWithNul(value: unknown, at = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? at || 'body' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = fieldWithNul(value[i], `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const name = at ? `${at}.${key}` : key;
      if (key.includes('\0')) return name;
      const found = fieldWithNul(v, name);
      if (found) return found;
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
