/**
 * The protobuf wire format (https://protobuf.dev/programming-guides/encoding/), just what the
 * SSH service's few accounts messages use: varints (int64 as a JS number, bool), length-delimited
 * fields (strings, nested messages). The messages themselves are in accounts-messages.ts, whose
 * test checks them field by field against the .proto loaded by proto-loader, so the proto stays
 * the one contract (docs/decisions/ssh-server.md#memory says why not @grpc/grpc-js here).
 */

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** Writes fields in the order given; default values (0, false, '') are left out, as proto3 does. */
export class MessageWriter {
  private readonly parts: Buffer[] = [];

  private varint(n: number): void {
    const bytes: number[] = [];
    while (n > 0x7f) {
      bytes.push((n % 128) | 0x80);
      n = Math.floor(n / 128);
    }
    bytes.push(n);
    this.parts.push(Buffer.from(bytes));
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  string(field: number, value: string | undefined): this {
    if (!value) return this;
    const bytes = Buffer.from(value, 'utf8');
    this.tag(field, LENGTH_DELIMITED);
    this.varint(bytes.length);
    this.parts.push(bytes);
    return this;
  }

  /** A non-negative integer up to 2^53 (ids, int64 fields read as numbers). */
  uint(field: number, value: number | undefined): this {
    if (!value) return this;
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`field ${field}: ${value} is not a non-negative safe integer`);
    this.tag(field, VARINT);
    this.varint(value);
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (!value) return this;
    this.tag(field, VARINT);
    this.varint(1);
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** One field as read: its number and either a varint or the bytes of a length-delimited value. */
export type WireField = { field: number; varint: number; bytes?: undefined } | { field: number; bytes: Buffer; varint?: undefined };

/** The fields of a message in wire order; fixed32/64 fields are skipped (none of ours has one). */
export function* readFields(message: Buffer): Generator<WireField> {
  const at = { i: 0 };
  while (at.i < message.length) {
    const tag = readVarint(message, at);
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === VARINT) yield { field, varint: readVarint(message, at) };
    else if (wire === LENGTH_DELIMITED) {
      const length = readVarint(message, at);
      if (at.i + length > message.length) throw new Error('protobuf: truncated field');
      yield { field, bytes: message.subarray(at.i, at.i + length) };
      at.i += length;
    } else if (wire === FIXED64) at.i += 8;
    else if (wire === FIXED32) at.i += 4;
    else throw new Error(`protobuf: unexpected wire type ${wire}`);
  }
}

function readVarint(buf: Buffer, at: { i: number }): number {
  let result = 0;
  let scale = 1;
  for (let shift = 0; shift < 70; shift += 7) {
    if (at.i >= buf.length) throw new Error('protobuf: truncated varint');
    const b = buf[at.i++]!;
    result += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) return result;
  }
  throw new Error('protobuf: varint too long');
}
