import { Prng } from './prng.js';

/**
 * File contents for the synthetic repository. Text is drawn from a skewed alphabet (spaces and
 * common letters more often, a newline every ~60 bytes) so zlib compresses it roughly as much as
 * source code, which keeps the pack size near a real repository of the same raw size. Binary
 * files are random bytes that start with a zero byte (seed §4 browsing rule 4 classifies them).
 */
const TEXT_TABLE = buildTextTable();

function buildTextTable(): Uint8Array {
  const weighted: Array<[string, number]> = [
    [' ', 40], ['e', 22], ['t', 16], ['a', 14], ['o', 14], ['i', 13], ['n', 12], ['s', 11], ['r', 11],
    ['h', 8], ['l', 7], ['d', 7], ['c', 6], ['u', 5], ['m', 5], ['f', 4], ['p', 4], ['g', 4], ['w', 3],
    ['y', 3], ['b', 3], ['v', 2], ['k', 2], ['(', 2], [')', 2], [';', 2], ['=', 2], ['.', 2], [',', 2],
    ['_', 2], ['{', 1], ['}', 1], ['0', 1], ['1', 1], ['2', 1], ['x', 1], ['j', 1], ['q', 1], ['z', 1],
    ['\n', 4],
  ];
  const total = weighted.reduce((n, [, w]) => n + w, 0);
  const table = new Uint8Array(256);
  let at = 0;
  weighted.forEach(([ch, w], index) => {
    const share = index === weighted.length - 1 ? 256 - at : Math.round((w * 256) / total);
    for (let i = 0; i < share && at < 256; i++) table[at++] = ch.charCodeAt(0);
  });
  while (at < 256) table[at++] = 0x20;
  return table;
}

/** The base content of a file: a pure function of its seed, size and kind. */
export function baseContent(seed: number, size: number, binary: boolean): Buffer {
  const buf = Buffer.allocUnsafe(size);
  const rng = new Prng(seed);
  let i = 0;
  if (binary) {
    for (; i + 4 <= size; i += 4) buf.writeUInt32LE(rng.nextU32(), i);
    for (; i < size; i++) buf[i] = rng.nextU32() & 0xff;
    buf[0] = 0; // a zero byte inside the first 8000 bytes makes it binary (seed §4 rule 4)
    return buf;
  }
  for (; i + 4 <= size; i += 4) {
    const r = rng.nextU32();
    buf[i] = TEXT_TABLE[r & 0xff]!;
    buf[i + 1] = TEXT_TABLE[(r >>> 8) & 0xff]!;
    buf[i + 2] = TEXT_TABLE[(r >>> 16) & 0xff]!;
    buf[i + 3] = TEXT_TABLE[r >>> 24]!;
  }
  for (; i < size; i++) buf[i] = TEXT_TABLE[rng.nextU32() & 0xff]!;
  if (size > 0) buf[size - 1] = 0x0a;
  return buf;
}

/**
 * Version `version` of a file: the base with a short marker written at a place that depends on
 * the version, so successive versions differ by a few bytes (as most real edits do) and pack
 * into small deltas.
 */
export function versionedContent(seed: number, size: number, binary: boolean, version: number): Buffer {
  const buf = baseContent(seed, size, binary);
  if (version === 0) return buf;
  const marker = Buffer.from(binary ? `\0rev${version}\0` : ` rev ${version} `);
  const room = Math.max(0, size - marker.length - 1);
  const at = room === 0 ? 0 : new Prng(seed ^ Math.imul(version, 0x9e3779b1)).int(binary ? 1 : 0, room);
  marker.copy(buf, at, 0, Math.min(marker.length, size - at));
  return buf;
}
