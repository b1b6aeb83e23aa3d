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
  /**
   * The next connection accepted passes its AMQP handshake (up to the broker's Connection.Open-Ok)
   * and then goes silent for good: whatever either side sends after it is dropped, even after
   * restore() (a connection that broke just after opening). Other connections are not affected.
   */
  stallAfterHandshake(): void;
  /** Connections that went silent after their handshake (see stallAfterHandshake()). */
  readonly stalledConnections: number;
  /**
   * One way only: what the clients send still reaches the broker, and what the broker sends back
   * (answers, publisher confirms, deliveries) is dropped until cut() or restore().
   */
  dropFromBroker(): void;
  /** Back to normal for open and new connections (after cut(), hold() or dropFromBroker()). */
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
  let dropping = false;
  let stallNext = false;
  let stalledConnections = 0;
  const sockets = new Set<net.Socket>();
  const paused = new Set<() => void>(); // flushes what a held connection kept
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  /** Forwards from → to, keeping the data instead while the proxy is held; `pass` may drop or cut a chunk. */
  const forward = (from: net.Socket, to: net.Socket, pass: (chunk: Buffer) => Buffer | null) => {
    const kept: Buffer[] = [];
    const flush = () => {
      paused.delete(flush);
      for (const chunk of kept.splice(0)) to.write(chunk);
    };
    from.on('data', (whole: Buffer) => {
      const chunk = pass(whole);
      if (chunk === null) return;
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
    let silent = false;
    const openOkEnd = stallNext ? openOkWatcher() : null;
    stallNext = false;
    forward(client, upstream, (chunk) => (silent ? null : chunk));
    forward(upstream, client, (chunk) => {
      if (silent || dropping) return null;
      const end = openOkEnd?.(chunk);
      if (end === undefined) return chunk;
      silent = true;
      stalledConnections++;
      return chunk.subarray(0, end);
    });
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
    get stalledConnections() {
      return stalledConnections;
    },
    cut() {
      mode = 'down';
      dropping = false;
      dropAll();
    },
    hold() {
      mode = 'held';
    },
    stallAfterHandshake() {
      stallNext = true;
    },
    dropFromBroker() {
      dropping = true;
    },
    restore() {
      mode = 'up';
      dropping = false;
      for (const flush of [...paused]) flush();
    },
    close() {
      mode = 'down';
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Reads the broker's side of a connection as AMQP 0-9-1 frames (type, channel, size, payload,
 * end octet) and tells, for the chunk in which the Connection.Open-Ok method (class 10, method 41,
 * channel 0) ends, the offset just past it; undefined for every other chunk.
 */
function openOkWatcher(): (chunk: Buffer) => number | undefined {
  let seen = Buffer.alloc(0);
  let next = 0; // where the next frame starts in `seen`
  let found = false;
  return (chunk) => {
    if (found) return undefined;
    const before = seen.length;
    seen = Buffer.concat([seen, chunk]);
    while (seen.length - next >= 7) {
      const size = seen.readUInt32BE(next + 3);
      const end = next + 7 + size + 1;
      if (seen.length < end) break;
      const openOk = seen[next] === 1 && seen.readUInt16BE(next + 1) === 0 && size >= 4 && seen.readUInt16BE(next + 7) === 10 && seen.readUInt16BE(next + 9) === 41;
      next = end;
      if (openOk) {
        found = true;
        return end - before;
      }
    }
    return undefined;
  };
}
