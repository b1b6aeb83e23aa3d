import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Repository } from '@githost/api-types';
import type { Service } from '@githost/runtime';
import { createServer, loadConfig } from '../../src/index.js';

export const SECRET = 'web-test-secret-0123456789';

export interface RunningWeb {
  web: Service<{ httpPort: number; metricsPort: number }>;
  /** The web's own address, e.g. http://127.0.0.1:41234 */
  base: string;
}

/** The web service on a free port, in front of `gatewayUrl` (a stand-in for the gateway). */
export async function startWeb(gatewayUrl: string, env: Record<string, string> = {}): Promise<RunningWeb> {
  const web = createServer(loadConfig({ GITHOST_INTERNAL_SECRET: SECRET, GATEWAY_URL: gatewayUrl, HTTP_PORT: '0', METRICS_PORT: '0', BIND_HOST: '127.0.0.1', ...env }));
  return { web, base: `http://127.0.0.1:${(await web.start()).httpPort}` };
}

/** A stand-in API on a free loopback port; what it does not route answers the API's JSON 404. */
async function listenAsApi(app: Express): Promise<{ server: Server; url: string }> {
  app.use((_req, res) => void res.status(404).json({ error: 'Not found' }));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A repository as `GET /api/users/{user}/repos` lists it. */
export function repositoryJson(owner: string, name: string, isPrivate = false): Repository {
  return { id: `${owner}/${name}`, owner, name, full_name: `${owner}/${name}`, private: isPrivate, default_branch: 'main', description: null, allow_tag_changes: false, clone_url: 'x', created_at: '2026-01-01T00:00:00Z' };
}

/** The web in front of `app` as its stand-in API; close() stops both. */
export async function startWebBefore(app: Express, env: Record<string, string> = {}): Promise<RunningWeb & { close(): Promise<void> }> {
  const api = await listenAsApi(app);
  const running = await startWeb(api.url, env);
  return {
    ...running,
    async close() {
      await running.web.stop();
      await new Promise((resolve) => api.server.close(resolve));
    },
  };
}
