import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Connections accepted while held (see hold()), whatever became of them since. */
  readonly heldAccepts: number;
  /** The broker goes away: every connection is dropped and new ones are refused. */
  cut(): void;
  /**
   * The broker stops answering without going away (a stalled broker, a network that drops
   * packets): open connections stay open but nothing passes either way (it is kept, and passes
   * on restore()), and new connections are accepted and then never answered, not even after
   * restore(): like a connection attempt whose packets were lost.
   */
  hold(): void;
  /** Back to normal for open and new connections (after cut() or hold()). */
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy to the real broker that the test can cut, hold and restore, to make the broker
 * unreachable or silent for this test's connections only (the broker is shared by everyone on
 * the machine).
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'up' | 'down' | 'held' = 'up';
  let heldAccepts = 0;
  const sockets = new Set<net.Socket>();
  const paused = new Set<() => void>(); // flushes what a held connection kept
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  /** Forwards from → to, keeping the data instead while the proxy is held. */
  const forward = (from: net.Socket, to: net.Socket) => {
    const kept: Buffer[] = [];
    const flush = () => {
      paused.delete(flush);
      for (const chunk of kept.splice(0)) to.write(chunk);
    };
    from.on('data', (chunk: Buffer) => {
      if (mode === 'held') {
        kept.push(chunk);
        paused.add(flush);
      } else to.write(chunk);
    });
  };
  const server = net.createServer((client) => {
    if (mode === 'down') return void client.destroy();
    track(client);
    if (mode === 'held') {
      heldAccepts++;
      return; // never answered
    }
    const upstream = net.connect(target);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dropAll = () => {
    for (const s of sockets) s.destroy();
    paused.clear();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    get heldAccepts() {
      return heldAccepts;
    },
    cut() {
      mode = 'down';
      dropAll();
    },
    hold() {
      mode = 'held';
    },
    restore() {
      mode = 'up';
      for (const flush of [...paused]) flush();
    },
    close() {
      mode = 'down';
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
