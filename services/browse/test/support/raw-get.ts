import { connect } from 'node:net';

/**
 * An answer as it came off the socket (no client that joins chunks for us): its head, how many
 * chunks a chunked body was sent in (0 when it was not chunked), and the body's bytes.
 */
export function rawGet(port: number, headers: Record<string, string>, target: string, method = 'GET'): Promise<{ head: string; chunks: number; body: Buffer }> {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${method} ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${lines}\r\n`));
    const parts: Buffer[] = [];
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(parts);
      const split = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, split).toString('latin1');
      if (!/\r\ntransfer-encoding: chunked/i.test(head)) return resolve({ head, chunks: 0, body: all.subarray(split + 4) });
      const body: Buffer[] = [];
      let at = split + 4;
      // Chunked framing: "<hex size>\r\n<bytes>\r\n" ... "0\r\n\r\n".
      for (;;) {
        const eol = all.indexOf('\r\n', at);
        if (eol < 0) break;
        const size = parseInt(all.subarray(at, eol).toString('latin1'), 16);
        if (!(size > 0)) break;
        body.push(all.subarray(eol + 2, eol + 2 + size));
        at = eol + 2 + size + 2;
      }
      resolve({ head, chunks: body.length, body: Buffer.concat(body) });
    });
  });
}
