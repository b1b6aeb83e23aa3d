import net from 'node:net';

/**
 * A TCP proxy to the real broker that the test can cut and restore, to make the broker
 * unreachable for this test's connections only (the broker is shared by everyone on the machine).
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<{ port: number; cut(): void; restore(): void; close(): Promise<void> }> {
  let down = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(target);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      down = false;
    },
    close() {
      down = true;
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
