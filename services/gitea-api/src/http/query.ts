import type { Request } from 'express';

/** A query parameter given once and not empty; undefined otherwise (a repeated one is an array). */
export const queryString = (req: Request, name: string): string | undefined => {
  const value = (req.query as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** A query parameter's first value, as Gitea's FormString reads a repeated one; undefined when absent or empty. */
export const firstQueryString = (req: Request, name: string): string | undefined => {
  const value = (req.query as Record<string, unknown>)[name];
  const first = Array.isArray(value) ? (value[0] as unknown) : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
};
