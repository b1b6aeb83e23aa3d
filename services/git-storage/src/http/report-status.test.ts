import { describe, expect, it } from '@jest/globals';
import { ReportStatusReader } from './report-status.js';

const pkt = (s: string | Buffer) => {
  const b = Buffer.isBuffer(s) ? s : Buffer.from(s);
  return Buffer.concat([Buffer.from((b.length + 4).toString(16).padStart(4, '0')), b]);
};
const band = (n: number, data: Buffer) => pkt(Buffer.concat([Buffer.from([n]), data]));
const FLUSH = Buffer.from('0000');
const report = Buffer.concat([pkt('unpack ok\n'), pkt('ok refs/heads/main\n'), pkt('ng refs/heads/locked failed to update ref\n'), pkt('ok refs/tags/v1'), FLUSH]);

function readAll(reader: ReportStatusReader, bytes: Buffer, step: number): void {
  for (let i = 0; i < bytes.length; i += step) reader.push(bytes.subarray(i, i + step));
}

describe('ReportStatusReader', () => {
  it('when receive-pack answers without side-band, then every ref it reported ok or ng is known, in any chunking', () => {
    for (const step of [1, 3, 7, report.length]) {
      const reader = new ReportStatusReader(false);
      readAll(reader, report, step);
      expect(reader.result()).toEqual({ ok: new Set(['refs/heads/main', 'refs/tags/v1']), failed: new Set(['refs/heads/locked']) });
    }
  });

  it('when the report comes in band 1 between progress, keep-alives and errors, then only band 1 is read', () => {
    const out = Buffer.concat([
      band(2, Buffer.from('Resolving deltas: 100% (3/3)\r')),
      band(1, Buffer.alloc(0)), // keep-alive
      band(1, report.subarray(0, 10)),
      band(3, Buffer.from('ok refs/heads/not-this-one\n')),
      band(1, report.subarray(10)),
      FLUSH,
    ]);
    for (const step of [1, 5, out.length]) {
      const reader = new ReportStatusReader(true);
      readAll(reader, out, step);
      expect(reader.result()).toEqual({ ok: new Set(['refs/heads/main', 'refs/tags/v1']), failed: new Set(['refs/heads/locked']) });
    }
  });

  it('when the answer stops before the report is complete, then nothing is claimed', () => {
    const reader = new ReportStatusReader(false);
    reader.push(report.subarray(0, report.length - 4));
    expect(reader.result()).toBeUndefined();
  });

  it('when the answer is not pkt-lines, then nothing is claimed, even if a flush follows', () => {
    const reader = new ReportStatusReader(false);
    reader.push(Buffer.from('HTTP/1.1 500 oops\n0000'));
    expect(reader.result()).toBeUndefined();
    const banded = new ReportStatusReader(true);
    banded.push(Buffer.concat([band(1, Buffer.from('zzzzok refs/heads/main\n')), FLUSH]));
    expect(banded.result()).toBeUndefined();
  });

  it('when an unpack failed, then every ref reported ng is failed and none is ok', () => {
    const reader = new ReportStatusReader(false);
    reader.push(Buffer.concat([pkt('unpack index-pack abnormal exit\n'), pkt('ng refs/heads/main unpacker error\n'), FLUSH]));
    expect(reader.result()).toEqual({ ok: new Set(), failed: new Set(['refs/heads/main']) });
  });
});
