import { PassThrough, type Readable } from 'node:stream';
import { OID_PATTERN } from '@githost/git-records/object-id';
import type { PushedRef } from '../hooks/push-check.js';

/**
 * The command list is a few pkt-lines per ref (~100 bytes); past this much the body is not a plain
 * push (10,000 refs are ~1 MiB, which the earlier 1 MiB cap sent to the per-ref hook:
 * docs/decisions/many-refs-push.md).
 */
const MAX_COMMANDS_BYTES = 32 * 1024 * 1024;
const COMMAND = new RegExp(`^(${OID_PATTERN}) (${OID_PATTERN}) (refs/[^\\0\\n ]+)(?:\\0([^\\n]*))?\\n?$`);
const SHALLOW = new RegExp(`^shallow ${OID_PATTERN}\\n?$`);

type Parsed = { done: false } | { done: true; refs?: PushedRef[]; capabilities?: string[] };

/**
 * Reads the command section chunk by chunk: each whole pkt-line once, only the unfinished last
 * one carried to the next chunk (reading the whole prefix again on every chunk cost seconds for
 * 10,000 refs).
 */
export class CommandSectionParser {
  private readonly refs: PushedRef[] = [];
  private capabilities: string[] = [];
  private rest: Buffer = Buffer.alloc(0);
  private result: Parsed = { done: false };

  feed(chunk: Buffer): Parsed {
    if (this.result.done) return this.result;
    const buf = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    let at = 0;
    while (buf.length - at >= 4) {
      const head = buf.subarray(at, at + 4).toString('latin1');
      if (!/^[0-9a-f]{4}$/.test(head)) return (this.result = { done: true });
      const len = Number.parseInt(head, 16);
      if (len > 0 && len < 4) return (this.result = { done: true });
      if (len === 0) return (this.result = { done: true, refs: this.refs, capabilities: this.capabilities });
      if (buf.length - at < len) break;
      const line = buf.subarray(at + 4, at + len).toString('latin1');
      at += len;
      if (SHALLOW.test(line)) continue;
      const m = COMMAND.exec(line);
      if (!m) return (this.result = { done: true });
      // The client's capabilities ride on the first command, after a NUL.
      if (this.refs.length === 0 && m[4] !== undefined) this.capabilities = m[4].split(' ').filter(Boolean);
      this.refs.push({ before: m[1]!, after: m[2]!, ref: Buffer.from(m[3]!, 'latin1').toString('utf8') });
    }
    this.rest = buf.subarray(at);
    return this.result;
  }
}

/**
 * The `<old> <new> <ref>` commands at the start of a receive-pack request (pkt-lines up to the
 * first flush), or undefined refs when the request is anything else (a push certificate, a
 * malformed or oversized list): then the hook decides alone from git's own list.
 */
export function parseCommandSection(buf: Buffer): Parsed {
  return new CommandSectionParser().feed(buf);
}

/**
 * Reads the command section off the (decoded) request body and gives back a stream of the WHOLE
 * body, the bytes read first, so receive-pack sees exactly what the client sent.
 */
export function peekCommands(body: Readable): Promise<{ refs?: PushedRef[]; capabilities?: string[]; body: Readable }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const parser = new CommandSectionParser();
    let size = 0;
    let settled = false;
    const settle = (parsed: Parsed | undefined, ended: boolean, err?: Error) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      const out = new PassThrough();
      out.write(Buffer.concat(chunks));
      if (err) {
        // Emitted on the next tick, before the caller can pipe `out`; the caller's pipeline still
        // sees the stream errored and fails.
        out.on('error', () => {});
        out.destroy(err);
      }
      else if (ended) out.end();
      else {
        body.on('error', (err) => out.destroy(err));
        body.pipe(out);
      }
      resolve(parsed?.done && parsed.refs ? { refs: parsed.refs, capabilities: parsed.capabilities, body: out } : { body: out });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      const parsed = parser.feed(chunk);
      if (parsed.done) settle(parsed, false);
      else if (size > MAX_COMMANDS_BYTES) settle(undefined, false);
    };
    const onEnd = () => {
      settle(parser.feed(Buffer.alloc(0)), true);
    };
    const onError = (err: Error) => settle(undefined, true, err);
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
  });
}
