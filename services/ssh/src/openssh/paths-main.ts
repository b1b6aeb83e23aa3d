import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveScriptPath } from './githost-keys.js';
import { SETTINGS_FILE_NAME } from './settings-file.js';

/**
 * `npm run -w @githost/ssh paths`: the sshd_config lines for this checkout, with absolute paths
 * (services/ssh/README.md#openssh-mode). DATA_DIR as `npm start` takes it (default ./data of the
 * repository), GITHOST_SSH_USER the git user (default git).
 */
const root = path.resolve(fileURLToPath(new URL('../../../..', import.meta.url)));
const dataDir = path.resolve(root, process.env.DATA_DIR || './data');
const keys = realpathSync(fileURLToPath(new URL('../../bin/githost-keys.js', import.meta.url)));
const user = process.env.GITHOST_SSH_USER || 'git';
process.stdout.write(
  [
    `# githost-keys: ${keys}`,
    `# githost-serve: ${serveScriptPath()}`,
    `# settings, written by npm start: ${path.join(dataDir, SETTINGS_FILE_NAME)}`,
    `Match User ${user}`,
    `    AuthorizedKeysFile none`,
    `    AuthorizedKeysCommand ${process.execPath} ${keys} --config=${path.join(dataDir, SETTINGS_FILE_NAME)} %u %k %t`,
    `    AuthorizedKeysCommandUser ${user}`,
    `    PasswordAuthentication no`,
    `    KbdInteractiveAuthentication no`,
    `    AcceptEnv GIT_PROTOCOL`,
    `    DisableForwarding yes`,
    `    PermitTTY no`,
    '',
  ].join('\n'),
);
