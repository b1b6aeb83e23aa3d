/**
 * Ports another party holds bound for a server of this process, until that server binds them.
 * The launcher reserves a service's gRPC port before any service starts (other services are
 * configured with its address first: launcher/src/public-port.ts); released before the service
 * even started, it stayed free for as long as a service process takes to load, and another
 * process's bind or outgoing connection could take it (a CI run failed with EADDRINUSE that way).
 * Registered here, it is released at the last moment, by the server's own bind. No imports, so
 * the lightest process can carry it.
 */
const held = new Map<number, () => Promise<void>>();

/** `release` frees `port`; the server of this process that binds `port` calls it just before. */
export function holdUntilBound(port: number, release: () => Promise<void>): void {
  held.set(port, release);
}

/** Frees `port` if it is held for this process (once), so that the caller can bind it now. */
export async function releaseForBind(port: number): Promise<void> {
  const release = held.get(port);
  if (!release) return;
  held.delete(port);
  await release();
}
