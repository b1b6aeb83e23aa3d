import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { validation } from '@githost/errors';
import { sshKeyFingerprint } from '@githost/identity';

/** An OpenSSH public key as accepted (docs/decisions/ssh-keys.md). */
export interface SshPublicKey {
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256/384/521` or `ssh-rsa`. */
  type: string;
  /** `<type> <base64>`, without the comment: what the API shows and compares. */
  key: string;
  /** `SHA256:<base64 without padding>` of the key blob, as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  /** The comment after the key, if any (a default title). */
  comment: string;
}

const CURVES: Record<string, { crv: string; bytes: number }> = {
  nistp256: { crv: 'P-256', bytes: 32 },
  nistp384: { crv: 'P-384', bytes: 48 },
  nistp521: { crv: 'P-521', bytes: 66 },
};
const ACCEPTED = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'];
/** Below this an RSA key can be factored with public means (NIST SP 800-131A). */
const MIN_RSA_BITS = 2048;
/** Bounds the work a key costs; OpenSSH refuses more too (SSHBUF_MAX_BIGNUM). */
const MAX_RSA_BITS = 16384;
/** Far above any accepted key (a 16384-bit RSA key is ~2.8 KB of base64). */
export const MAX_KEY_LENGTH = 8192;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const ACCEPTED_TEXT = 'ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa (2048 bits or more)';

const malformed = (why: string) => validation(`Invalid key: ${why}`);

/** The SSH wire format's length-prefixed fields (RFC 4251 §5), read with bounds checks. */
class WireReader {
  private offset = 0;
  constructor(private readonly data: Buffer) {}

  bytes(): Buffer {
    if (this.offset + 4 > this.data.length) throw malformed('the key data is truncated');
    const length = this.data.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (length > this.data.length - start) throw malformed('the key data is truncated');
    this.offset = start + length;
    return this.data.subarray(start, this.offset);
  }

  /** An mpint (RFC 4251 §5) that must be positive, without its leading zero byte. */
  positive(): Buffer {
    const raw = this.bytes();
    if (raw.length === 0 || (raw[0]! & 0x80) !== 0) throw malformed('an RSA number is not positive');
    let start = 0;
    while (start < raw.length && raw[start] === 0) start++;
    if (start === raw.length) throw malformed('an RSA number is zero');
    return raw.subarray(start);
  }

  end(): void {
    if (this.offset !== this.data.length) throw malformed('there is data after the key');
  }
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

function bitLength(magnitude: Buffer): number {
  return (magnitude.length - 1) * 8 + (32 - Math.clz32(magnitude[0]!));
}

/** Checks the blob's fields for its type; node's crypto then checks the key is a valid one (point on the curve...). */
function checkBlob(type: string, blob: Buffer): void {
  const reader = new WireReader(blob);
  if (reader.bytes().toString('latin1') !== type) throw malformed(`the key data is not a ${type} key`);
  let jwk: JsonWebKey;
  if (type === 'ssh-ed25519') {
    const point = reader.bytes();
    if (point.length !== 32) throw malformed('an ed25519 key is 32 bytes');
    jwk = { kty: 'OKP', crv: 'Ed25519', x: b64url(point) };
  } else if (type === 'ssh-rsa') {
    const e = reader.positive();
    const n = reader.positive();
    const bits = bitLength(n);
    if (bits < MIN_RSA_BITS) throw malformed(`RSA keys must have at least ${MIN_RSA_BITS} bits (this one has ${bits})`);
    if (bits > MAX_RSA_BITS) throw malformed(`RSA keys may have at most ${MAX_RSA_BITS} bits`);
    jwk = { kty: 'RSA', e: b64url(e), n: b64url(n) };
  } else {
    const name = type.slice('ecdsa-sha2-'.length);
    const curve = CURVES[name]!;
    if (reader.bytes().toString('latin1') !== name) throw malformed(`the key data is not a ${type} key`);
    const point = reader.bytes();
    // SEC 1 §2.3.3: an uncompressed point, 0x04 || x || y.
    if (point.length !== 1 + 2 * curve.bytes || point[0] !== 4) throw malformed(`the ${name} point is not an uncompressed curve point`);
    jwk = { kty: 'EC', crv: curve.crv, x: b64url(point.subarray(1, 1 + curve.bytes)), y: b64url(point.subarray(1 + curve.bytes)) };
  }
  reader.end();
  try {
    createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw malformed(`the ${type} key data is not a valid key`);
  }
}

/**
 * One OpenSSH public key line (`<type> <base64> [comment]`, as in a `.pub` file). Refuses with
 * a 400 naming why: private keys, several keys, `authorized_keys` options, DSA and unknown
 * types, short RSA keys, and key data that does not decode to a valid key of its type.
 */
export function parseSshPublicKey(text: string): SshPublicKey {
  if (text.length > MAX_KEY_LENGTH) throw malformed(`a public key is at most ${MAX_KEY_LENGTH} characters`);
  const trimmed = text.trim();
  if (trimmed === '') throw validation('key is required');
  if (/PRIVATE KEY/.test(trimmed)) throw malformed('this is a private key; paste the public key (the .pub file) and keep the private key secret');
  if (/BEGIN SSH2 PUBLIC KEY|BEGIN PUBLIC KEY/.test(trimmed)) throw malformed('paste the key in OpenSSH format (one line starting with its type, as in a .pub file)');
  const lines = trimmed.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length > 1) throw malformed('one key per request (the text holds several lines)');
  const [type = '', data = '', ...comment] = trimmed.split(/[ \t]+/);
  if (!ACCEPTED.includes(type)) {
    if (type === 'ssh-dss') throw malformed(`DSA keys are not accepted; use ${ACCEPTED_TEXT}`);
    if (ACCEPTED.includes(data) || comment.some((word) => ACCEPTED.includes(word))) throw malformed('options before the key (as in authorized_keys) are not accepted; paste the key alone');
    throw malformed(`unknown key type ${JSON.stringify(type.slice(0, 40))}; use ${ACCEPTED_TEXT}`);
  }
  if (data === '' || !BASE64.test(data) || data.length % 4 !== 0) throw malformed('the key data is not base64');
  const blob = Buffer.from(data, 'base64');
  checkBlob(type, blob);
  const fingerprint = sshKeyFingerprint(blob);
  return { type, key: `${type} ${blob.toString('base64')}`, fingerprint, comment: comment.join(' ') };
}

/** `SHA256:` and 43 base64 characters: the only fingerprints a lookup can match. */
export function isSha256Fingerprint(text: string): boolean {
  return /^SHA256:[A-Za-z0-9+/]{43}$/.test(text);
}
