import { describe, expect, it } from '@jest/globals';
import { classifyBlob, encodeBlobContent, rawContentType } from './blob.js';

describe('classifyBlob (seed §4 browsing rule 4)', () => {
  it('when no byte is zero, then the content is text', () => {
    expect(classifyBlob(Buffer.from('hello\n'))).toBe('utf-8');
  });

  it('when a zero byte sits at offset 7999, then the content is binary', () => {
    const b = Buffer.alloc(9000, 0x61);
    b[7999] = 0;
    expect(classifyBlob(b)).toBe('base64');
  });

  it('when the first zero byte sits at offset 8000, then the content is text', () => {
    const b = Buffer.alloc(9000, 0x61);
    b[8000] = 0;
    expect(classifyBlob(b)).toBe('utf-8');
  });

  it('when the content is empty, then it is text', () => {
    expect(classifyBlob(Buffer.alloc(0))).toBe('utf-8');
  });

  it('when invalid UTF-8 holds no zero byte, then it is text decoded lossily', () => {
    expect(encodeBlobContent(Buffer.from([0x61, 0xff, 0x62]))).toEqual({ content: 'a\ufffdb', encoding: 'utf-8' });
  });

  it('when the content is binary, then it is base64 of the raw bytes', () => {
    expect(encodeBlobContent(Buffer.from([0, 1, 2, 255]))).toEqual({ content: 'AAEC/w==', encoding: 'base64' });
  });

  it('when choosing a raw content type, then text is text/plain utf-8 and binary octet-stream', () => {
    expect([rawContentType('utf-8'), rawContentType('base64')]).toEqual(['text/plain; charset=utf-8', 'application/octet-stream']);
  });
});
