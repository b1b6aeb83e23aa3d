import { bindingPort } from '@githost/config/errors';
import type { MetricsEndpoint } from '@githost/http';
import { createLogger, type Logger } from '@githost/logging';
import type { Service, ServicePorts } from '@githost/runtime';
import type { Config } from './config.js';
import { sshAccounts, type SshAccounts } from './clients/accounts.js';
import { createRegistry, internalHttpHandler, listenHttp, serveMetrics, type Listening } from './http/internal-http.js';
import { duplexGit } from './clients/git-storage.js';
import { createLimitStores, type LimitStores } from '@githost/rate-limits';
import { gitBudget } from './git-budget.js';
import { loadHostKeys, type HostKey } from './host-keys.js';
import { lfsAuthentication } from './lfs-authentication.js';
import { createSshServer, newRequestId } from './ssh-server.js';
import { createIdleCollection, exposedCollector } from './memory/idle-collection.js';

/** How long after the last command the idle collection runs (docs/decisions/ssh-server.md#memory). */
const IDLE_COLLECTION_DELAY_MS = 2000;

export interface ServerDeps {
  logger?: Logger;
  /** The launcher's shared /metrics listener (embedded mode); without it, METRICS_PORT is this service's own. */
  metricsEndpoint?: MetricsEndpoint;
}

export interface SshPorts extends ServicePorts {
  /** Where SSH clients connect (SSH_PORT). */
  sshPort: number;
}

const SERVICE = 'ssh';

/** What `GET /host-keys` answers: what users compare with what `ssh` shows them. */
export interface HostKeysAnswer {
  ssh_port: number;
  host_keys: Array<{ type: string; public_key: string; fingerprint: string }>;
}

/**
 * The SSH service (services/ssh/README.md): the SSH listener on SSH_PORT, and an internal HTTP
 * port (health, readiness, `GET /host-keys` for the web's settings page). Holds no state of its
 * own besides its host keys: every connection asks accounts, every command runs in git-storage.
 */
export function createServer(config: Config, deps: ServerDeps = {}): Service<SshPorts> {
  const logger = deps.logger ?? createLogger(SERVICE);
  let accounts: SshAccounts | undefined;
  let ssh: ReturnType<typeof createSshServer> | undefined;
  let serving: Listening[] = [];
  let limitStores: LimitStores | undefined;
  const idleCollection = createIdleCollection(exposedCollector(), IDLE_COLLECTION_DELAY_MS);

  return {
    async start() {
      const hostKeys: HostKey[] = await loadHostKeys(config.hostKeyDir);
      const registry = createRegistry(SERVICE);
      const found = sshAccounts(config.accountsGrpcAddress, config.internalSecret);
      accounts = found;
      limitStores = createLimitStores({ ...config.rateLimitStore, logger, registry, service: SERVICE });
      ssh = createSshServer({
        hostKeys,
        limits: config.limits,
        callerByFingerprint: (fingerprint, requestId) => found.callerByFingerprint(fingerprint, requestId),
        commands: {
          authorize: (principal, owner, name, requestId) => found.authorize(principal, owner, name, requestId),
          withinGitBudget: gitBudget(config.gitPerMinute, limitStores),
          runGit: duplexGit(config.gitStorageShards, config.internalSecret),
          lfsAuthentication: lfsAuthentication(config.publicUrl, config.internalSecret),
          newRequestId,
          logger,
        },
        logger,
        idleCollection,
      });
      const listening = ssh;
      const sshPort = await bindingPort('SSH_PORT', config.sshPort, () => listening.listen(config.sshPort, config.sshBindHost));
      const answer: HostKeysAnswer = { ssh_port: sshPort, host_keys: hostKeys.map((k) => ({ type: k.type, public_key: k.publicKey, fingerprint: k.fingerprint })) };
      // Public facts (what `ssh` prints on first contact), so no identity is asked for.
      const handler = internalHttpHandler({ service: SERVICE, logger, registry, ready: { accounts: () => found.reachable() }, routes: { '/host-keys': () => answer } });
      try {
        serving.push(await listenHttp('HTTP_PORT', handler, config.httpPort, config.bindHost));
        serving.push(await serveMetrics(registry, config.metricsPort, config.bindHost, deps.metricsEndpoint));
      } catch (err) {
        await Promise.all([listening.close(), ...serving.map((s) => s.close())]);
        serving = [];
        throw err;
      }
      const [http, metrics] = serving as [Listening, Listening];
      logger.info({ http_port: http.port }, `${SERVICE} listening`);
      // What users compare with `ssh`'s first-contact prompt (services/ssh/README.md#from-a-developers-machine).
      logger.info({ ssh_port: sshPort, host_keys: hostKeys.map((k) => `${k.type} ${k.fingerprint}`) }, 'git over SSH listening');
      return { httpPort: http.port, metricsPort: metrics.port, sshPort };
    },

    async stop() {
      idleCollection.stop();
      await ssh?.close();
      await Promise.all(serving.map((s) => s.close()));
      accounts?.close();
      await limitStores?.close();
      limitStores = undefined;
      ssh = undefined;
      serving = [];
      accounts = undefined;
    },
  };
}
