import { AppError, httpStatusOf, type ErrorKind } from '@githost/errors';
import type { PageContext } from '../pages/registry.js';
import { Notice } from './components.js';

export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="csrf" value={token} />;
}

/** A button that posts a small form (close, revoke, redeliver): the anti-CSRF token, the
 *  hidden fields, one button. */
export function PostButton({ ctx, action, label, fields = {}, kind }: { ctx: PageContext; action: string; label: string; fields?: Record<string, string>; kind?: 'primary' | 'danger' }) {
  return (
    <form method="post" action={action} class="inline">
      <CsrfField token={ctx.csrf} />
      {Object.entries(fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={kind}>
        {label}
      </button>
    </form>
  );
}

/**
 * The notice after a redirect (`?done=<key>`): the message is chosen by key from the page's own
 * list, so nothing from the URL is echoed into the page.
 */
export function Flash({ ctx, messages }: { ctx: PageContext; messages: Record<string, string> }) {
  const key = typeof ctx.req.query.done === 'string' ? ctx.req.query.done : '';
  const message = Object.prototype.hasOwnProperty.call(messages, key) ? messages[key] : undefined;
  return message ? <Notice kind="info">{message}</Notice> : null;
}

export function ErrorNotice({ error }: { error: string | undefined }) {
  return error ? <Notice kind="error">{error}</Notice> : null;
}

/** A refusal of the API a person can act on (bad input, a conflict, no permission), with its
 *  status; anything else (404, 5xx, signed out) goes on to the router's error pages. */
/** The kinds a person can act on from the form; their status comes from packages/errors' one table. */
const FORM_KINDS: readonly ErrorKind[] = ['validation', 'conflict', 'unprocessable', 'forbidden', 'too_large'];

export function formRefusal(err: unknown): { message: string; status: number } | undefined {
  if (!(err instanceof AppError)) return undefined;
  const status = typeof err.details?.status === 'number' ? err.details.status : undefined;
  if (!FORM_KINDS.includes(err.kind)) return undefined;
  return { message: err.message, status: status ?? httpStatusOf(err.kind) };
}

/** Runs a change; its refusal becomes the page re-rendered with the message, anything else
 *  propagates. */
export async function attempt<T, R>(change: () => Promise<T>, onRefused: (message: string, status: number) => Promise<R> | R): Promise<{ ok: true; value: T } | { ok: false; result: R }> {
  try {
    return { ok: true, value: await change() };
  } catch (err) {
    const refusal = formRefusal(err);
    if (!refusal) throw err;
    return { ok: false, result: await onRefused(refusal.message, refusal.status) };
  }
}
