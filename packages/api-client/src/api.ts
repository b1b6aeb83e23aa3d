import type { paths } from '@githost/api-types';
import { AppError, kindOfHttpStatus, type ErrorKind } from '@githost/errors';

// The gateway's refusals of a request's form (a stalled body, too many header fields): a client of
// this package sends neither, and were one to come it is shown as the form's error, as any 4xx without a kind.
const EDGE_ONLY: readonly ErrorKind[] = ['request_timeout', 'headers_too_large'];

/** An API answer that was not 2xx, as an AppError carrying the API's own message and status
 *  (the kind by packages/errors' one table; 429 keeps its status in details). */
export function apiError(status: number, message: string | undefined): AppError {
  if (status === 429) return new AppError('unavailable', 'Too many requests: try again in a minute', { status });
  const known = kindOfHttpStatus(status);
  const kind = status >= 500 ? 'unavailable' : known && !EDGE_ONLY.includes(known) ? known : 'validation';
  return new AppError(kind, message || `The API answered ${status}`, { status });
}

/** A path template of openapi/openapi.yaml, e.g. `/api/repos/{owner}/{repo}`. */
export type ApiTemplate = keyof paths;
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;
type JsonOf<R, S extends number> = R extends Record<S, { content: { 'application/json': infer Body } }> ? Body : never;
/** What an operation answers when it succeeds: its 200 or 201 JSON, else nothing (204). */
type AnswerOf<Op> = Op extends { responses: infer R } ? (200 extends keyof R ? JsonOf<R, 200> : 201 extends keyof R ? JsonOf<R, 201> : undefined) : never;
/** The answer of `method` on `T`, as the document declares it. */
export type ApiAnswer<T extends ApiTemplate, M extends Method = 'get'> = AnswerOf<paths[T][M]>;
/** The templates that have the given method. */
export type WithMethod<M extends Method> = { [T in ApiTemplate]: paths[T][M] extends { responses: unknown } ? T : never }[ApiTemplate];

declare const TEMPLATE: unique symbol;
/** A path of the API that fills the template `T` (built by `apiPath`), so its answer type
 *  follows from the document, not from the caller. */
export type ApiPath<T extends ApiTemplate> = string & { readonly [TEMPLATE]: T };

// A ref (and a path under it) may hold slashes: each segment encoded, the slashes kept.
const SLASHED = new Set(['ref', 'ref_and_path']);

/**
 * `template` with each `{name}` filled from `params`, percent-encoded, then `query` (`?...`)
 * as given.
 */
export function apiPath<T extends ApiTemplate>(template: T, ...[params, query = '']: [Placeholders<T>] extends [never] ? [params?: Record<string, never>, query?: string] : [params: Record<Placeholders<T>, string | number>, query?: string]): ApiPath<T> {
  const values = (params ?? {}) as Record<string, string | number>;
  const filled = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => (SLASHED.has(name) ? encodePath(String(values[name])) : encodeURIComponent(String(values[name]))));
  return (filled + query) as ApiPath<T>;
}

/** `/api/repos/{owner}/{repo}` with each name percent-encoded. */
export function repoApiPath(owner: string, repo: string, rest = ''): string {
  return `/api/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}${rest}`;
}

/** A ref or path that may hold slashes: each segment encoded, the slashes kept. */
export function encodePath(value: string): string {
  return value.split('/').map(encodeURIComponent).join('/');
}
