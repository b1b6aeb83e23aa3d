import { createLogger } from '@githost/logging';
import { ConfigError } from '@githost/config';
import { loadConfig, type Config } from './config.js';
import { createServer } from './server.js';

const logger = createLogger('gateway');
let config: Config;
try {
  config = loadConfig();
} catch (err) {
  // A bad variable stops the process at boot with the message naming it (STYLE: config validated at boot).
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
const server = createServer(config, { logger });
await server.start();

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  server.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
