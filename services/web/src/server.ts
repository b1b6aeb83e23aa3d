import { fileURLToPath } from 'node:url';
import client from 'prom-client';
import { ownGateway } from '@githost/api-client';
import { createHttpApp, createRegistry, express, serveHttp, type MetricsEndpoint, type ServingHttp } from '@githost/http';
import { createLogger, type Logger } from '@githost/logging';
import type { Service } from '@githost/runtime';
import type { Config } from './config.js';
import { securityHeaders } from './http/security-headers.js';
import { ALL_PAGES } from './pages/index.js';
import { pageRouter } from './pages/router.js';

export interface ServerDeps {
  logger?: Logger;
  /** The launcher's shared /metrics listener (embedded mode); without it, METRICS_PORT is this service's own. */
  metricsEndpoint?: MetricsEndpoint;
}

const ASSETS = fileURLToPath(new URL('./assets/', import.meta.url));

/**
 * Stateless: every page is rendered from the public REST API, called through the gateway as the
 * person asking, so any number of copies can run (services/web/README.md#one-path-for-access-control).
 */
export function createServer(config: Config, deps: ServerDeps = {}): Service<{ httpPort: number; metricsPort: number }> {
  const logger = deps.logger ?? createLogger('web');
  const registry = createRegistry('web');
  // Ready when the API it renders from answers: its own gateway while its check has it up, or the
  // others behind the fallback (docs/decisions/replicas.md#a-partner-that-hangs).
  const { fallbackUrl } = config.gateway;
  const partnerDown = fallbackUrl === undefined ? undefined : new client.Gauge({ name: 'githost_web_gateway_partner_down', help: 'Whether the web\'s own gateway failed its health checks (1), its calls sent to GATEWAY_FALLBACK_URL, or answers them (0)', registers: [registry] });
  partnerDown?.set(0);
  const { partner, ready: gateway } = ownGateway({ ...config.gateway, logger, onChange: (up) => partnerDown?.set(up ? 0 : 1) });
  const app = createHttpApp({ service: 'web', logger, ready: { gateway }, registry, json: false });
  app.use(securityHeaders);
  app.use('/-/static', express.static(ASSETS, { index: false, fallthrough: true, maxAge: '5m', dotfiles: 'ignore' }));
  const pages = pageRouter(ALL_PAGES, { config: partner ? { ...config, gateway: { ...config.gateway, partner } } : config, logger });
  app.use(pages.router);
  app.use(pages.notFound);
  app.use(pages.errors);

  let serving: ServingHttp | undefined;
  return {
    async start() {
      serving = await serveHttp(app, registry, config, { service: 'web', logger, metricsEndpoint: deps.metricsEndpoint });
      partner?.start();
      return serving.ports;
    },
    async stop() {
      partner?.stop();
      await serving?.close();
      serving = undefined;
    },
  };
}
