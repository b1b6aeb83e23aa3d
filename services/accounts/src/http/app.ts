import type { Express } from 'express';
import type { Registry } from 'prom-client';
import { createHttpApp, finish, type ReadinessChecks } from '@githost/http';
import type { Logger } from '@githost/logging';
import type { AccountsDeps } from '../domain/deps.js';
import { registerOAuthRoutes, type OAuthParts } from './oauth-routes.js';
import { registerRoutes } from './routes.js';

export function createAccountsApp(opts: {
  logger: Logger;
  internalSecret: string;
  publicUrl: string;
  ready: ReadinessChecks;
  deps: AccountsDeps;
  registry: Registry;
  /** Counts sign-in outcomes (docs/operating.md#metrics). */
  onSignIn?: (result: 'signed_in' | 'refused' | 'throttled') => void;
  /** The OAuth2 provider (docs/decisions/oauth2-provider.md). */
  oauth?: OAuthParts;
}): Express {
  const app = createHttpApp({ service: 'accounts', logger: opts.logger, internalSecret: opts.internalSecret, ready: opts.ready, registry: opts.registry });
  if (opts.oauth) registerOAuthRoutes(app, opts.deps, opts.oauth);
  registerRoutes(app, opts.deps, opts.publicUrl, opts.onSignIn);
  return finish(app);
}
