/** What the faces over the API (the web, the Gitea-compatible API) show of the SSH service: its port and host keys (services/ssh `GET /host-keys`). */
export interface SshFacts {
  port: number;
  hostKeys: Array<{ type: string; fingerprint: string }>;
}

/** How long an answer is reused: host keys never change while the service runs, its port only
 *  when it restarts. */
const REUSE_MS = 60_000;
const TIMEOUT_MS = 2_000;
const cache = new Map<string, { at: number; facts: SshFacts | null }>();

/**
 * The SSH service's facts, or null when none is configured (SSH_HTTP_URL unset) or it does not
 * answer: pages then show HTTPS alone and no fingerprints, and never fail for it.
 */
export async function sshFactsOf(url: string | undefined, now = Date.now()): Promise<SshFacts | null> {
  if (!url) return null;
  const hit = cache.get(url);
  if (hit && now - hit.at < REUSE_MS) return hit.facts;
  let facts: SshFacts | null = null;
  try {
    const res = await fetch(`${url}/host-keys`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = (await res.json()) as { ssh_port?: unknown; host_keys?: Array<{ type?: unknown; fingerprint?: unknown }> };
    if (res.ok && typeof body.ssh_port === 'number' && Array.isArray(body.host_keys)) {
      facts = { port: body.ssh_port, hostKeys: body.host_keys.map((k) => ({ type: String(k.type), fingerprint: String(k.fingerprint) })) };
    }
  } catch {
    facts = null;
  }
  // A failure is reused for a moment too, so a down service costs one timeout a minute, not one a page.
  cache.set(url, { at: now, facts });
  return facts;
}

/**
 * The SSH clone URL on the public host (README.md#ssh): `ssh://git@host:port/owner/repo.git`, or the
 * scp form `git@host:owner/repo.git` when the port is 22, as GitHub and Gitea show it.
 */
export function sshCloneUrl(publicUrl: string, facts: SshFacts, owner: string, name: string): string {
  const host = new URL(publicUrl).hostname;
  return facts.port === 22 ? `git@${host}:${owner}/${name}.git` : `ssh://git@${host}:${facts.port}/${owner}/${name}.git`;
}
