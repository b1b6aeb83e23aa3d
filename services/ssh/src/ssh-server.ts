import { randomUUID } from 'node:crypto';
import { Socket, type AddressInfo } from 'node:net';
import type { Algorithms, AuthContext, Connection, ServerChannel, Session } from 'ssh2';
import type { Logger } from '@githost/logging';
import { sshKeyFingerprint } from '@githost/identity';
import type { Corked } from './clients/gather.js';
import type { HostKey } from './host-keys.js';
import type { IdleCollection } from './memory/idle-collection.js';
import { serveCommand, type CommandDeps, type SshCaller } from './commands/index.js';
import ssh2 from './ssh2-module.js';

const { Server, utils } = ssh2;

/**
 * Modern algorithms only (docs/decisions/ssh-server.md#algorithms): curve25519/ECDH key exchange
 * (ssh2 adds `kex-strict-s-v00@openssh.com`, the Terrapin countermeasure, to every offer), AEAD or
 * CTR ciphers, SHA-2 MACs (encrypt-then-MAC first); no CBC, no SHA-1 MAC, no finite-field group1/14-sha1.
 */
export const ALGORITHMS: Algorithms = {
  kex: ['curve25519-sha256', 'curve25519-sha256@libssh.org', 'ecdh-sha2-nistp256', 'ecdh-sha2-nistp384', 'ecdh-sha2-nistp521'],
  cipher: ['chacha20-poly1305@openssh.com', 'aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr'],
  serverHostKey: ['ssh-ed25519', 'rsa-sha2-512', 'rsa-sha2-256'],
  hmac: ['hmac-sha2-256-etm@openssh.com', 'hmac-sha2-512-etm@openssh.com', 'hmac-sha2-256', 'hmac-sha2-512'],
  compress: ['none'],
};

export interface SshLimits {
  unauthenticatedPerAddress: number;
  sessionsPerKey: number;
  loginGraceMs: number;
  /** An authenticated connection with no command running this long is closed. */
  idleMs: number;
  authAttempts: number;
}

export interface SshServerDeps {
  hostKeys: HostKey[];
  limits: SshLimits;
  /** Who a key is, asked fresh for every connection (accounts LookupSshKey); null: nobody. */
  callerByFingerprint(fingerprint: string, requestId: string): Promise<SshCaller | null>;
  commands: CommandDeps;
  logger: Logger;
  /** Told of every command's start and end, so memory is collected once all are done. */
  idleCollection?: IdleCollection;
}

/** What a connection's sessions report, so its idle timer runs only while no command does. */
interface CommandActivity {
  started(): void;
  ended(): void;
}

/** The environment variables a client may send (`env` requests); git sends GIT_PROTOCOL only. */
const ACCEPTED_ENV = new Set(['GIT_PROTOCOL']);

/**
 * The SSH listener (docs/decisions/ssh-server.md): public key authentication only, the key's owner
 * looked up fresh for every connection; each session runs one command through the dispatcher
 * (commands/), the one authorisation path; everything else an SSH client can ask for (a pty, port
 * forwarding, agent forwarding, X11, subsystems like sftp) is refused.
 */
export function createSshServer(deps: SshServerDeps) {
  const { limits, logger } = deps;
  const unauthenticated = new Map<string, number>();
  const sessions = new Map<string, number>();
  const connections = new Set<Connection>();

  const server = new Server({ hostKeys: deps.hostKeys.map((k) => k.privateKey), algorithms: ALGORITHMS, ident: 'githost' }, (client, info) => {
    const address = info.ip;
    const open = unauthenticated.get(address) ?? 0;
    client.on('error', (err) => logger.debug({ err, address }, 'ssh connection error'));
    if (open >= limits.unauthenticatedPerAddress) {
      logger.warn({ address, limit: limits.unauthenticatedPerAddress }, 'ssh: too many unauthenticated connections from one address, dropping one');
      client.end();
      return;
    }
    connections.add(client);
    unauthenticated.set(address, open + 1);
    let counted = true;
    const uncount = () => {
      if (!counted) return;
      counted = false;
      const n = (unauthenticated.get(address) ?? 1) - 1;
      if (n <= 0) unauthenticated.delete(address);
      else unauthenticated.set(address, n);
    };
    const grace = setTimeout(() => {
      logger.info({ address }, 'ssh: no authentication in time, disconnecting');
      client.end();
    }, limits.loginGraceMs);
    grace.unref();
    // After authentication: closes the connection once no command has run for `idleMs`
    // (docs/decisions/ssh-server.md#limits). A running command is bounded by git-storage's own
    // cut-off (PUSH_IDLE_TIMEOUT_MS) when both directions fall silent, so the timer waits for it.
    let idle: NodeJS.Timeout | undefined;
    let running = 0;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        logger.info({ address, idle_ms: limits.idleMs }, 'ssh: no command for too long, disconnecting');
        client.end();
      }, limits.idleMs);
      idle.unref();
    };
    const activity: CommandActivity = {
      started() {
        running++;
        clearTimeout(idle);
      },
      ended() {
        running--;
        if (running === 0 && connections.has(client)) armIdle();
      },
    };
    client.on('close', () => {
      clearTimeout(grace);
      clearTimeout(idle);
      uncount();
      connections.delete(client);
    });

    let attempts = 0;
    let caller: SshCaller | null = null;
    let lookedUp: { fingerprint: string; caller: SshCaller | null } | undefined;
    client.on('authentication', (ctx: AuthContext) => {
      attempts++;
      if (attempts > limits.authAttempts) {
        ctx.reject();
        client.end();
        return;
      }
      if (ctx.method !== 'publickey') {
        ctx.reject(['publickey']);
        return;
      }
      const fingerprint = sshKeyFingerprint(ctx.key.data);
      void (async () => {
        // One lookup per key per connection (the query and the signed attempt ask about the same key).
        if (lookedUp?.fingerprint !== fingerprint) lookedUp = { fingerprint, caller: await deps.callerByFingerprint(fingerprint, randomUUID()) };
        const found = lookedUp.caller;
        if (!found) return ctx.reject(['publickey']);
        // Without a signature the client only asks whether the key would do (RFC 4252 §7).
        if (!ctx.signature) return ctx.accept();
        const key = utils.parseKey(ctx.key.data);
        if (key instanceof Error || !ctx.blob || key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(['publickey']);
        caller = found;
        ctx.accept();
      })().catch((err: unknown) => {
        logger.error({ err }, 'ssh: key lookup failed');
        ctx.reject(['publickey']);
      });
    });

    client.on('ready', () => {
      clearTimeout(grace);
      uncount();
      const who = caller!;
      logger.info({ address, key_id: who.keyId, kind: who.kind }, 'ssh: authenticated');
      armIdle();
      client.on('session', (accept) => serveSession(accept(), who, activity, corkedOn(client)));
      // Port forwarding (-L, -R), agent and X11 forwarding, streamlocal: none of githost's business.
      client.on('tcpip', (_accept, reject) => reject());
      client.on('openssh.streamlocal', (_accept, reject) => reject());
      client.on('request', (_accept, reject) => reject?.());
    });
  });

  function serveSession(session: Session, caller: SshCaller, activity: CommandActivity, corked: Corked | undefined): void {
    const env: Record<string, string> = {};
    let started = false;
    session.on('env', (accept, reject, info) => {
      if (ACCEPTED_ENV.has(info.key)) {
        env[info.key] = info.val;
        accept?.();
      } else reject?.();
    });
    session.on('pty', (_accept, reject) => reject?.());
    session.on('x11', (_accept, reject) => reject?.());
    session.on('auth-agent', (_accept, reject) => reject?.());
    session.on('subsystem', (_accept, reject) => reject?.());
    session.on('signal', () => {});
    const run = (channel: ServerChannel, command: string | null) => {
      started = true;
      // A client gone mid-answer: the write fails here, and must not take the process down.
      channel.on('error', (err: Error) => logger.debug({ err }, 'ssh channel error'));
      channel.stderr.on('error', () => {});
      const key = caller.keyId;
      const running = sessions.get(key) ?? 0;
      if (running >= limits.sessionsPerKey) {
        channel.stderr.write(`Too many sessions at once for this key (limit ${limits.sessionsPerKey}), try again later\n`);
        channel.exit(1);
        channel.end();
        return;
      }
      sessions.set(key, running + 1);
      activity.started();
      deps.idleCollection?.started();
      const done = (code: number) => {
        activity.ended();
        deps.idleCollection?.ended();
        const n = (sessions.get(key) ?? 1) - 1;
        if (n <= 0) sessions.delete(key);
        else sessions.set(key, n);
        if (channel.destroyed || channel.writableEnded) return;
        channel.exit(code < 0 ? 1 : code);
        channel.end();
      };
      serveCommand(deps.commands, caller, command, env, { stdin: channel, stdout: channel, stderr: channel.stderr, ...(corked ? { corked } : {}) }).then(done, (err: unknown) => {
        logger.error({ err }, 'ssh: command failed');
        done(1);
      });
    };
    session.on('exec', (accept, _reject, info) => {
      if (!started) run(accept(), info.command);
    });
    session.on('shell', (accept) => {
      if (!started) run(accept(), null);
    });
  }

  return {
    listen(port: number, host: string): Promise<number> {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      });
    },
    /** Stops accepting and ends every connection (git in git-storage stops with its request). */
    close(): Promise<void> {
      for (const c of connections) c.end();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export const newRequestId = (): string => randomUUID();

/**
 * Runs a write with the connection's TCP socket corked, so the SSH packets ssh2 makes of it (one
 * `socket.write` each) leave in one `writev` (docs/decisions/ssh-server.md#the-clone-path). ssh2
 * exposes no hook for it: its server connection keeps the socket as `_sock` (ssh2 1.17.0,
 * lib/server.js); without one, the write runs as it is.
 */
export function corkedOn(connection: Connection): Corked | undefined {
  const socket = (connection as unknown as { _sock?: unknown })._sock;
  if (!(socket instanceof Socket)) return undefined;
  return (write) => {
    socket.cork();
    try {
      return write();
    } finally {
      socket.uncork();
    }
  };
}
