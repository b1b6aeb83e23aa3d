import { readFileSync } from 'node:fs';

/**
 * The settings file of OpenSSH mode (services/ssh/README.md#openssh-mode): `KEY=value` lines, as a
 * systemd EnvironmentFile, with the variables the SSH service reads from its environment.
 * sshd runs `githost-keys` and `githost-serve` with an environment of its own making, so they
 * read where accounts and git-storage are, and the internal secret, from this file instead;
 * `npm start` writes one as `DATA_DIR/openssh.env` on every start. Imports nothing heavy:
 * githost-keys reads it on every connection.
 */
export type Settings = Record<string, string>;

/** Characters a path may have to be written into sshd's `command="…"`, run by the user's shell. */
const SHELL_SAFE_PATH = /^\/[A-Za-z0-9_./+@-]*$/;

export function isShellSafePath(path: string): boolean {
  return SHELL_SAFE_PATH.test(path) && !path.includes('..');
}

/** The lines of a settings file; blank lines and `#` comments skipped, values taken as written
 *  (an optional pair of surrounding double or single quotes removed). */
export function parseSettings(text: string): Settings {
  const out: Settings = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0])) value = value.slice(1, -1);
    out[key] = value;
  }
  return out;
}

/** Writes nothing, reads the file; a missing or unreadable file is an Error naming it. */
export function readSettings(file: string): Settings {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the settings file ${file}: ${(err as Error).message}`);
  }
  return parseSettings(text);
}

/** A setting that must be there, as an Error naming the variable and the file. */
export function required(settings: Settings, name: string, file: string): string {
  const value = settings[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set in ${file}`);
  return value;
}

/** The settings file's lines for an environment: what `npm start` writes for OpenSSH mode. */
export function formatSettings(settings: Settings): string {
  const lines = ['# githost OpenSSH mode: read by githost-keys and githost-serve (services/ssh/README.md#openssh-mode).', '# Rewritten on every start; it holds the internal secret: keep it 0600.'];
  for (const [key, value] of Object.entries(settings)) if (value !== undefined && value !== '') lines.push(`${key}=${value}`);
  return `${lines.join('\n')}\n`;
}
