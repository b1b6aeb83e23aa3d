import { site } from '../pages/paths.js';

/** 404 for what does not exist and for what the caller may not see: one page, so it tells nothing. */
export function NotFoundPage() {
  return (
    <section class="error-page">
      <h1>Page not found</h1>
      <p>There is nothing here, or you do not have access to it.</p>
      <p>
        <a href={site.home()}>Go home</a>
      </p>
    </section>
  );
}

/** Anything else that went wrong: what the person can do, never what broke inside. */
export function ErrorPage({ status, message, requestId }: { status: number; message: string; requestId?: string | undefined }) {
  return (
    <section class="error-page">
      <h1>{status >= 500 ? 'Something went wrong' : 'That did not work'}</h1>
      <p>{message}</p>
      {requestId && (
        <p class="muted">
          Request id: <code>{requestId}</code>
        </p>
      )}
    </section>
  );
}
