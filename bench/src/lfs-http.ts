import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** One object of a transfer: its sha256 oid, its size and the file holding (or to receive) its bytes. */
export interface LfsObject {
  oid: string;
  size: number;
  file: string;
}

/** Where one object goes or comes from: an action's href and headers (or the plain server's URL). */
export interface Target {
  href: string;
  header?: Record<string, string>;
}

/** git-lfs's `lfs.concurrenttransfers` default (docs/man/git-lfs-config.adoc): 8 objects at once. */
export const CONCURRENT_TRANSFERS = 8;

/** Keep-alive connections, as git-lfs's Go client reuses them, up to the transfers in flight. */
export function transferAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: CONCURRENT_TRANSFERS });
}

/**
 * A request written on a kept-alive connection the server had closed meanwhile (its keep-alive
 * timeout passed while this busy client was elsewhere) fails before any answer: it is sent once
 * more on a fresh connection, as Go's http transport (git-lfs's) does.
 */
async function onceMoreIfReused(send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!(err as { reusedSocket?: boolean }).reusedSocket || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw err;
    await send();
  }
}

/** Streams `file` as the body of `PUT href` (Content-Length: the object's size, as basic-transfers.md says). */
export function putFile(target: Target, object: LfsObject, agent: Agent): Promise<void> {
  return onceMoreIfReused(() => putFileOnce(target, object, agent));
}

async function putFileOnce(target: Target, object: LfsObject, agent: Agent): Promise<void> {
  const req = request(target.href, {
    method: 'PUT',
    agent,
    headers: { ...target.header, 'content-type': 'application/octet-stream', 'content-length': String(object.size) },
  });
  const answered = response(req);
  answered.catch(() => {}); // the pipeline below reports the same error first
  await pipeline(createReadStream(object.file), req);
  const res = await answered;
  const body = await text(res);
  if (res.statusCode !== 200) throw new Error(`PUT ${target.href}: ${res.statusCode} ${body}`);
}

/** `GET href` into `file`, hashing as it goes (git-lfs checks every download's sha256). */
export function getToFile(target: Target, object: LfsObject, file: string, agent: Agent): Promise<void> {
  return onceMoreIfReused(() => getToFileOnce(target, object, file, agent));
}

async function getToFileOnce(target: Target, object: LfsObject, file: string, agent: Agent): Promise<void> {
  const req = request(target.href, { method: 'GET', agent, headers: { ...target.header } });
  const answered = response(req);
  req.end();
  const res = await answered;
  if (res.statusCode !== 200) throw new Error(`GET ${target.href}: ${res.statusCode} ${await text(res)}`);
  const hash = createHash('sha256');
  let bytes = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(res, check, createWriteStream(file));
  const oid = hash.digest('hex');
  if (bytes !== object.size || oid !== object.oid) throw new Error(`GET ${target.href}: got ${bytes} bytes with sha256 ${oid}, expected ${object.size} bytes, ${object.oid}`);
}

/** A JSON request (the batch API); the answer's status and parsed body. */
export async function postJson(href: string, header: Record<string, string>, body: unknown, agent: Agent): Promise<{ status: number; body: unknown }> {
  const payload = Buffer.from(JSON.stringify(body));
  const req = request(href, { method: 'POST', agent, headers: { ...header, 'content-length': String(payload.length) } });
  const answered = response(req);
  req.end(payload);
  const res = await answered;
  const raw = await text(res);
  let parsed: unknown = raw;
  try {
    parsed = raw ? JSON.parse(raw) : undefined;
  } catch {
    // keep the text
  }
  return { status: res.statusCode ?? 0, body: parsed };
}

/** Runs `work` over `items`, `limit` at a time; the first failure rejects. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function response(req: ReturnType<typeof request>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
  });
}

async function text(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}
