import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

/**
 * The LFS bench's baseline: a plain node `http` server, in a process of its own as githost's
 * services are, streaming `PUT /objects/<oid>` to a temporary file, fsyncing it, renaming it in
 * place and fsyncing the directory (as githost's disk store does), and `GET /objects/<oid>` from disk. No batch API, no
 * authentication, no hashing: the bytes to and from disk alone. With `verify`, it also checks each
 * upload's sha256 against its oid before the rename, as git-lfs's basic transfer asks of a server
 * and githost does (the second baseline of the upload rows).
 */
export interface PlainLfsServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startPlainLfsServer(dir: string, opts: { verify?: boolean } = {}): Promise<PlainLfsServer> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), dir, ...(opts.verify ? ['--verify'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening (\d+)\n/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the plain LFS server exited with ${code} before listening`)));
  });
  return {
    url: `http://127.0.0.1:${port}/objects`,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function serve(dir: string, verify: boolean): Promise<void> {
  const tmp = join(dir, 'tmp');
  const server = createServer((req, res) => {
    const m = /^\/objects\/([0-9a-f]{64})$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    const file = join(dir, m[1]!);
    const fail = (err: unknown): void => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.destroy();
    };
    if (req.method === 'PUT') {
      const temp = join(tmp, `${m[1]}.${randomBytes(6).toString('hex')}`);
      void (async () => {
        // made on each upload, as githost's store does, so the bench may empty `dir` between cases
        await mkdir(tmp, { recursive: true });
        const hash = verify ? createHash('sha256') : undefined;
        const hashing = hash
          ? [
              new Transform({
                transform(chunk: Buffer, _enc, done) {
                  hash.update(chunk);
                  done(null, chunk);
                },
              }),
            ]
          : [];
        await pipeline([req, ...hashing, createWriteStream(temp, { flags: 'wx' })]);
        if (hash && hash.digest('hex') !== m[1]) throw new Error('the upload does not match its oid');
        const handle = await open(temp, 'r');
        await handle.sync().finally(() => handle.close());
        await rename(temp, file);
        // the rename made durable too, as githost's store does (fsync of the directory)
        const parent = await open(dir, 'r');
        await parent.sync().finally(() => parent.close());
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      })().catch(async (err: unknown) => {
        await rm(temp, { force: true });
        fail(err);
      });
    } else if (req.method === 'GET') {
      void stat(file).then(
        (s) => {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(s.size) });
          void pipeline(createReadStream(file), res).catch(() => undefined);
        },
        () => res.writeHead(404).end(),
      );
    } else res.writeHead(405).end();
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: lfs-plain-server.js <directory>');
  void serve(dir, process.argv[3] === '--verify');
}
