import { describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { parseCommandSection, peekCommands } from './receive-commands.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const pkt = (s: string) => (s.length + 4).toString(16).padStart(4, '0') + s;

describe('parseCommandSection', () => {
  it('when a push request starts with commands, then they are read up to the flush, capabilities and shallow lines aside', () => {
    const body = pkt(`shallow ${A}\n`) + pkt(`${A} ${B} refs/heads/main\0report-status side-band-64k\n`) + pkt(`${B} ${A} refs/tags/v1\n`) + '0000PACK...';
    expect(parseCommandSection(Buffer.from(body))).toEqual({
      done: true,
      refs: [{ before: A, after: B, ref: 'refs/heads/main' }, { before: B, after: A, ref: 'refs/tags/v1' }],
      capabilities: ['report-status', 'side-band-64k'],
    });
  });

  it('when the section is not complete yet, then more is needed; when it is something else, then there are no refs', () => {
    expect(parseCommandSection(Buffer.from(pkt(`${A} ${B} refs/heads/main\n`).slice(0, 30)))).toEqual({ done: false });
    expect(parseCommandSection(Buffer.from(pkt('push-cert\0caps\n') + '0000'))).toEqual({ done: true });
    expect(parseCommandSection(Buffer.from('zzzz'))).toEqual({ done: true });
  });
});

describe('peekCommands', () => {
  it('when the body comes in small chunks, then the commands are found and the stream still gives every byte', async () => {
    const body = pkt(`${A} ${B} refs/heads/main\0report-status\n`) + '0000' + 'PACK'.repeat(1000);
    const chunks = body.match(/.{1,7}/gs)!.map((c) => Buffer.from(c));
    const peeked = await peekCommands(Readable.from(chunks));
    expect(peeked.refs).toEqual([{ before: A, after: B, ref: 'refs/heads/main' }]);
    expect(peeked.capabilities).toEqual(['report-status']);
    expect(await text(peeked.body)).toBe(body);
  });

  it('when the body ends before a flush, then there are no refs and the bytes are all there', async () => {
    const peeked = await peekCommands(Readable.from([Buffer.from('00')]));
    expect(peeked.refs).toBeUndefined();
    expect(await text(peeked.body)).toBe('00');
  });
});
