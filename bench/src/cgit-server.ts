import { spawn } from 'node:child_process';
import http from 'node:http';

/**
 * A tiny HTTP server running cgit as the CGI it is: one cgit process per request, with the CGI
 * environment (RFC 3875) and CGIT_CONFIG. Run as its own process by the cold-reads part
 * (`node cgit-server.js <cgi> <cgitrc>`), so the bench's client does not share its event loop;
 * it prints its port on stdout.
 */
function serve(cgi: string, config: string): void {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const child = spawn(cgi, [], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        CGIT_CONFIG: config,
        GATEWAY_INTERFACE: 'CGI/1.1',
        REQUEST_METHOD: req.method ?? 'GET',
        SCRIPT_NAME: '',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        SERVER_NAME: 'localhost',
        SERVER_PORT: String((server.address() as { port: number }).port),
        SERVER_PROTOCOL: 'HTTP/1.1',
        REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', () => {
      res.writeHead(502).end();
    });
    child.on('close', () => {
      const out = Buffer.concat(chunks);
      let split = out.indexOf('\r\n\r\n');
      let sep = 4;
      if (split < 0) {
        split = out.indexOf('\n\n');
        sep = 2;
      }
      if (split < 0) {
        res.writeHead(502).end();
        return;
      }
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of out.subarray(0, split).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
        else headers[name] = value;
      }
      const body = out.subarray(split + sep);
      headers['Content-Length'] = String(body.length);
      res.writeHead(status, headers).end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as { port: number }).port}\n`);
  });
}

const [cgi, config] = process.argv.slice(2);
if (cgi && config) serve(cgi, config);
