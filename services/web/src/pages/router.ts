import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { express } from '@githost/http';
import { AppError, httpStatusOf, toAppError } from '@githost/errors';
import { REQUEST_ID_HEADER, type Logger } from '@githost/logging';
import { apiPath, GatewayApi, type ApiCaller } from '../clients/api.js';
import { PageAnswers } from './page-cache.js';
import type { Viewer } from '../clients/types.js';
import type { Config } from '../config.js';
import { clientForwardingHeaders } from '../http/client-forwarding.js';
import { appendCookie, cookieHeader, CsrfTokens, newPreSession, PRE_SESSION_COOKIE, readCookies, SESSION_COOKIE, type CsrfBinding } from '../http/session.js';
import { ErrorPage, NotFoundPage } from '../views/errors.js';
import { renderDocument } from '../views/render.js';
import { KeptPages } from './page-cache.js';
import { site } from './paths.js';
import { pageParams, type PageContext, type PageDefinition, type PageResult } from './registry.js';

/** Largest form body a page accepts (a token name, a password, a comment). */
export const FORM_LIMIT = '64kb';

export interface RouterDeps {
  config: Config;
  logger: Logger;
}

interface RequestSession {
  /** The session secret from the cookie, if any. */
  secret?: string;
  binding: CsrfBinding;
}

/** What the web knows of this browser: its session cookie, or a pre-session for the sign-in form. */
function sessionOf(req: Request, res: Response, secure: boolean): RequestSession {
  const cookies = readCookies(req);
  const secret = cookies.get(SESSION_COOKIE);
  if (secret) return { secret, binding: { kind: 'session', value: secret } };
  let pre = cookies.get(PRE_SESSION_COOKIE);
  if (!pre) {
    pre = newPreSession();
    appendCookie(res, cookieHeader(PRE_SESSION_COOKIE, pre, { secure }));
  }
  return { binding: { kind: 'pre-session', value: pre } };
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  appendCookie(res, cookieHeader(SESSION_COOKIE, '', { secure, maxAgeSeconds: 0 }));
}

/**
 * Mounts every page: builds its context (API client as the caller, viewer, anti-CSRF token),
 * checks forms (bounded body, token), renders the result in the layout. Errors become pages.
 */
export function pageRouter(definitions: readonly PageDefinition[], deps: RouterDeps): { router: express.Router; errors: ErrorRequestHandler; notFound: RequestHandler } {
  const { config } = deps;
  const secure = config.publicUrl.startsWith('https:');
  const csrf = new CsrfTokens(config.internalSecret);
  const router = express.Router();
  const forms = express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: 200 });
  const keptPages = new KeptPages();

  const callerOf = (req: Request, answers?: PageAnswers): ApiCaller => ({ requestId: String(req.headers[REQUEST_ID_HEADER] ?? ''), headers: clientForwardingHeaders(req, config.internalSecret), ...(answers && { answers }) });
  const contextOf = (req: Request, res: Response, session: RequestSession, api: GatewayApi, viewer: () => Viewer | null): PageContext => {
    const form = (req.body ?? {}) as PageContext['form'];
    return {
      req,
      res,
      config,
      api,
      get viewer() {
        return viewer();
      },
      csrf: csrf.tokenFor(session.binding),
      form,
    };
  };
  const anonymous = (req: Request, res: Response, session: RequestSession, answers?: PageAnswers) => contextOf(req, res, session, new GatewayApi(config.gateway, callerOf(req, answers)), () => null);
  // An expired or revoked session: forget it and go on as anonymous.
  const forgetSession = (res: Response): RequestSession => {
    clearSessionCookie(res, secure);
    const fresh: RequestSession = { binding: { kind: 'pre-session', value: newPreSession() } };
    appendCookie(res, cookieHeader(PRE_SESSION_COOKIE, fresh.binding.value, { secure }));
    return fresh;
  };
  const isUnauthenticated = (err: unknown) => err instanceof AppError && err.kind === 'unauthenticated';

  /**
   * The page's result for this request. Who is asking (`GET /api/user`) is looked up beside the
   * page's own calls, not before them, for a GET page that does not read the viewer first: every
   * call carries the same credential and hands its answer back only once the viewer is known
   * (the API client's gate), so what the page shows is still only what the API gave this person.
   * A session the API refuses throws that work away and renders the page anonymously.
   */
  const resultOf = async (def: PageDefinition, req: Request, res: Response, session: RequestSession, answers?: PageAnswers): Promise<{ ctx: PageContext; result: PageResult | undefined }> => {
    const params = pageParams(req.params as Record<string, string | string[]>);
    const run = async (ctx: PageContext) => {
      res.locals.pageContext = ctx;
      if (def.signedIn && !ctx.viewer) {
        res.redirect(303, site.signIn(req.originalUrl));
        return { ctx, result: undefined };
      }
      return { ctx, result: await def.handle(ctx, params) };
    };
    if (!session.secret) return run(anonymous(req, res, session, answers));
    const caller = { ...callerOf(req, answers), credential: session.secret };
    const lookup = new GatewayApi(config.gateway, caller).get(apiPath('/api/user'));
    if (def.method !== 'GET' || def.signedIn || def.readsViewerFirst) {
      let viewer: Viewer;
      try {
        viewer = await lookup;
      } catch (err) {
        if (!isUnauthenticated(err)) throw err;
        return run(anonymous(req, res, forgetSession(res), answers));
      }
      return run(contextOf(req, res, session, new GatewayApi(config.gateway, caller), () => viewer));
    }
    let viewer: Viewer | undefined;
    const known = lookup.then((v) => {
      viewer = v;
    });
    const ctx = contextOf(req, res, session, new GatewayApi(config.gateway, { ...caller, gate: known }), () => {
      if (viewer === undefined) throw new AppError('internal', 'The page read the viewer before its first API call: mark it readsViewerFirst');
      return viewer;
    });
    const page = def.handle(ctx, params);
    // Marked handled now: the page may fail while the viewer is still being looked up.
    page.catch(() => undefined);
    try {
      await known;
    } catch (err) {
      if (!isUnauthenticated(err)) throw err;
      return run(anonymous(req, res, forgetSession(res), answers));
    }
    res.locals.pageContext = ctx;
    return { ctx, result: await page };
  };

  const sendHtml = (res: Response, status: number, html: string) => {
    res.status(status);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.send(html);
  };

  /** Sends the result; a page's HTML is handed back. */
  const send = (ctx: PageContext, result: PageResult): string | undefined => {
    const { res } = ctx;
    if (result.kind === 'sent') return undefined;
    if (result.kind === 'redirect') {
      res.redirect(result.status ?? 303, result.to);
      return undefined;
    }
    const html = renderDocument({ title: result.title, viewer: ctx.viewer, csrf: ctx.csrf, repo: result.repo, children: result.body });
    sendHtml(res, result.status ?? 200, html);
    return html;
  };

  const built = async (def: PageDefinition, req: Request, res: Response, session: RequestSession) => {
    const { ctx, result } = await resultOf(def, req, res, session);
    if (result) send(ctx, result);
  };

  /**
   * A keepable page (pages/page-cache.ts): the kept HTML when the API answers its calls as it
   * did, asked as this person now; else built, from the answers that check just got, and kept
   * when every call it made was a 200 GET with this credential.
   */
  const keptOrBuilt = async (def: PageDefinition, req: Request, res: Response, session: RequestSession) => {
    const key = KeptPages.keyOf(session.secret, req.originalUrl);
    const token = csrf.tokenFor(session.binding);
    const checked = await keptPages.revalidate(key, new GatewayApi(config.gateway, { ...callerOf(req), ...(session.secret !== undefined && { credential: session.secret }) }), token);
    if ('html' in checked) return sendHtml(res, 200, checked.html);
    const answers = new PageAnswers(session.secret);
    for (const [path, answer] of checked.answers) answers.offer(path, answer);
    const { ctx, result } = await resultOf(def, req, res, session, answers);
    if (!result) return;
    const html = send(ctx, result);
    if (html !== undefined && result.kind === 'page' && (result.status ?? 200) === 200 && answers.keepable && ctx.csrf === token) keptPages.keep(key, html, token, answers.answers);
  };

  for (const def of definitions) {
    const handler: RequestHandler = (req, res, next) => {
      const session = sessionOf(req, res, secure);
      if (def.method === 'POST' && !csrf.verify(session.binding, (req.body as Record<string, unknown> | undefined)?.csrf)) {
        next(new AppError('forbidden', 'This form has expired. Go back, reload the page and try again.'));
        return;
      }
      (def.method === 'GET' && def.keepable ? keptOrBuilt : built)(def, req, res, session).catch(next);
    };
    if (def.method === 'GET') router.get(def.path, handler);
    else router.post(def.path, forms, handler);
  }

  const errorPage = (res: Response, status: number, body: ReturnType<typeof NotFoundPage>, title: string) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const ctx = res.locals.pageContext as PageContext | undefined;
    sendHtml(res, status, renderDocument({ title, viewer: ctx?.viewer ?? null, csrf: ctx?.csrf ?? '', children: body }));
  };

  const notFound: RequestHandler = (_req, res) => errorPage(res, 404, NotFoundPage(), 'Page not found');

  const errors: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    const e = formError(err) ?? toAppError(err);
    if (e.kind === 'not_found') return notFound(req, res, () => undefined);
    if (e.kind === 'unauthenticated') {
      clearSessionCookie(res, secure);
      if (!res.headersSent) res.redirect(303, site.signIn(req.method === 'GET' ? req.originalUrl : undefined));
      return;
    }
    const status = typeof e.details?.status === 'number' ? e.details.status : httpStatusOf(e.kind);
    if (status >= 500) (req as Request & { log?: Logger }).log?.error({ err: (e.cause as Error | undefined) ?? e }, 'page failed');
    // 500 without internals; an unreachable dependency says only that.
    let message = e.message;
    if (e.kind === 'internal' || (status >= 500 && e.kind !== 'unavailable')) message = 'The page could not be shown.';
    else if (e.kind === 'unavailable' && status !== 429) message = 'The service is unavailable right now. Try again shortly.';
    const requestId = String(req.headers[REQUEST_ID_HEADER] ?? '') || undefined;
    errorPage(res, status, ErrorPage({ status, message, requestId }), 'Error');
  };
  return { router, errors, notFound };
}

/** The form parser's own refusals (too large, bad charset) as AppErrors. */
function formError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return undefined;
  const e = err as { type?: string; status?: number } | undefined;
  if (e?.type === 'entity.too.large') return new AppError('too_large', 'The form is too large.');
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return new AppError('validation', 'The form could not be read.');
  return undefined;
}
