import http2 from 'node:http2';
import { INTERNAL_CALL_METADATA, signInternalCall } from '@githost/identity';

/**
 * accounts' LookupSshKey by fingerprint as githost-keys asks it: one gRPC unary call over
 * node's own http2, its two messages encoded by hand, because githost-keys runs on every SSH
 * connection and @grpc/grpc-js with proto-loader costs ~0.5-1 s to load on a busy machine, node's
 * http2 nothing (docs/decisions/openssh-mode.md). Only the fields githost-keys needs are
 * read (protos/githost/accounts/v1/accounts.proto: LookupSshKeyRequest.fingerprint = 1,
 * LookupSshKeyResponse.outcome = 1, key_id = 2); lookup-key-lite.test.ts checks the encoding
 * against the real accounts server code.
 */
export const LOOKUP_SSH_KEY_PATH = '/githost.accounts.v1.AccountsService/LookupSshKey';

export interface KeyLookup {
  /** not_found, refused, user or deploy_key. */
  outcome: string;
  keyId: number;
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n > 0x7f) {
    bytes.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  bytes.push(n);
  return Buffer.from(bytes);
}

/** LookupSshKeyRequest{fingerprint} as a gRPC message frame (uncompressed, length-prefixed). */
export function lookupRequestFrame(fingerprint: string): Buffer {
  const value = Buffer.from(fingerprint, 'utf8');
  const message = Buffer.concat([Buffer.from([0x0a]), varint(value.length), value]);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

function readVarint(buf: Buffer, at: { i: number }): number {
  let result = 0;
  let scale = 1;
  for (let shift = 0; shift < 64; shift += 7) {
    if (at.i >= buf.length) throw new Error('truncated varint');
    const b = buf[at.i++]!;
    result += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) return result;
  }
  throw new Error('varint too long');
}

/** The outcome and key id of a LookupSshKeyResponse message; other fields are skipped. */
export function decodeLookupResponse(message: Buffer): KeyLookup {
  const out: KeyLookup = { outcome: '', keyId: 0 };
  const at = { i: 0 };
  while (at.i < message.length) {
    const tag = readVarint(message, at);
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) {
      const v = readVarint(message, at);
      if (field === 2) out.keyId = v;
    } else if (wire === 2) {
      const length = readVarint(message, at);
      if (at.i + length > message.length) throw new Error('truncated field');
      if (field === 1) out.outcome = message.subarray(at.i, at.i + length).toString('utf8');
      at.i += length;
    } else if (wire === 1) at.i += 8;
    else if (wire === 5) at.i += 4;
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

/** The one message of a unary answer's body. */
function messageOfBody(body: Buffer): Buffer {
  if (body.length < 5) throw new Error('accounts answered no message');
  if (body[0] !== 0) throw new Error('accounts answered a compressed message');
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) throw new Error('accounts answered a truncated message');
  return body.subarray(5, 5 + length);
}

/**
 * Asks accounts at `address` (host:port, plaintext as every internal gRPC call) who the key
 * with `fingerprint` is, signing the call with the internal secret; rejects on any failure
 * (unreachable, a gRPC status other than OK, `timeoutMs` passed).
 */
export function lookupKeyByFingerprint(address: string, internalSecret: string, fingerprint: string, timeoutMs = 5_000): Promise<KeyLookup> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${address}`);
    const timer = setTimeout(() => fail(new Error(`accounts at ${address} did not answer within ${timeoutMs} ms`)), timeoutMs);
    let done = false;
    function fail(err: Error) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      session.destroy();
      reject(err);
    }
    session.on('error', (err) => fail(new Error(`accounts at ${address}: ${err.message}`)));
    const req = session.request({
      ':method': 'POST',
      ':path': LOOKUP_SSH_KEY_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
      [INTERNAL_CALL_METADATA]: signInternalCall(LOOKUP_SSH_KEY_PATH, internalSecret),
    });
    const chunks: Buffer[] = [];
    let status: string | undefined;
    let statusMessage = '';
    const noteStatus = (headers: http2.IncomingHttpHeaders) => {
      if (headers['grpc-status'] !== undefined) {
        status = String(headers['grpc-status']);
        statusMessage = decodeURIComponent(String(headers['grpc-message'] ?? ''));
      }
    };
    req.on('response', noteStatus);
    req.on('trailers', noteStatus);
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', (err) => fail(new Error(`accounts at ${address}: ${err.message}`)));
    req.on('end', () => {
      if (done) return;
      try {
        if (status !== '0') throw new Error(`accounts answered gRPC status ${status ?? '(none)'}${statusMessage ? `: ${statusMessage}` : ''}`);
        const answer = decodeLookupResponse(messageOfBody(Buffer.concat(chunks)));
        done = true;
        clearTimeout(timer);
        session.close();
        resolve(answer);
      } catch (err) {
        fail(err as Error);
      }
    });
    req.end(lookupRequestFrame(fingerprint));
  });
}
