import { describe, expect, it } from '@jest/globals';
import { LFS_POINTER_MAX_BYTES, parseLfsPointer } from './lfs-pointer.js';

const OID = '4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393';
const pointer = (text: string) => Buffer.from(text);
const valid = `version https://git-lfs.github.com/spec/v1\noid sha256:${OID}\nsize 12345\n`;

describe('parseLfsPointer (git-lfs docs/spec.md)', () => {
  it('when a blob is the pointer git lfs writes, then its oid and size are read', () => {
    expect(parseLfsPointer(pointer(valid))).toEqual({ oid: OID, size: 12345 });
  });

  it('when a pointer carries extension keys in sorted order or the pre-1.0 version, then it is still one', () => {
    const ext = `version https://git-lfs.github.com/spec/v1\next-0-foo sha256:${OID}\noid sha256:${OID}\nsize 3\n`;
    expect(parseLfsPointer(pointer(ext))).toEqual({ oid: OID, size: 3 });
    expect(parseLfsPointer(pointer(valid.replace('git-lfs.github.com', 'hawser.github.com')))).toEqual({ oid: OID, size: 12345 });
  });

  it('when a blob only looks like a pointer, then it is not one', () => {
    const cases = [
      '',
      valid.slice(0, -1), // no final newline
      valid.replace(/\n/g, '\r\n'),
      `oid sha256:${OID}\nversion https://git-lfs.github.com/spec/v1\nsize 1\n`, // version not first
      `version https://git-lfs.github.com/spec/v1\nsize 1\noid sha256:${OID}\n`, // keys unsorted
      `version https://git-lfs.github.com/spec/v2\noid sha256:${OID}\nsize 1\n`,
      `version https://git-lfs.github.com/spec/v1\noid sha256:${OID.toUpperCase()}\nsize 1\n`,
      `version https://git-lfs.github.com/spec/v1\noid sha1:${OID.slice(0, 40)}\nsize 1\n`,
      `version https://git-lfs.github.com/spec/v1\noid sha256:${OID}\nsize -1\n`,
      `version https://git-lfs.github.com/spec/v1\noid sha256:${OID}\n`, // no size
      `version https://git-lfs.github.com/spec/v1\noid sha256:${OID}\nsize 1\nsize 2\n`, // repeated key
      `version https://git-lfs.github.com/spec/v1\nOid sha256:${OID}\nsize 1\n`,
      `${valid}x${' '.repeat(LFS_POINTER_MAX_BYTES)}\n`, // too long
    ];
    for (const text of cases) expect([text, parseLfsPointer(pointer(text))]).toEqual([text, undefined]);
  });
});
