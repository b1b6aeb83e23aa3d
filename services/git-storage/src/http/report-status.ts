/** Past this much report the answer is not a plain push's report-status; it is not read further. */
const MAX_REPORT_BYTES = 4 * 1024 * 1024;

/** What receive-pack reported for each ref (git's pack-protocol "report-status"). */
export interface ReportedStatus {
  /** Refs git answered `ok` for: they moved. */
  ok: Set<string>;
  /** Refs git answered `ng` for (refused, or the unpack failed). */
  failed: Set<string>;
}

/**
 * Reads receive-pack's answer as it streams to the client and keeps its report-status: `unpack`,
 * then `ok <ref>` / `ng <ref> <reason>` pkt-lines up to a flush, inside band 1 when side-band was
 * asked for (progress on band 2 and errors on band 3 are skipped). `result()` is undefined until
 * the whole report has been seen, and for anything that is not one: then only the refs on disk
 * can tell what happened (README "Push events survive a kill").
 */
export class ReportStatusReader {
  private outer = Buffer.alloc(0);
  private inner = Buffer.alloc(0);
  private seen = 0;
  private done = false;
  private broken = false;
  private readonly ok = new Set<string>();
  private readonly failed = new Set<string>();

  constructor(private readonly sideband: boolean) {}

  push(chunk: Buffer): void {
    if (this.done || this.broken) return;
    this.seen += chunk.length;
    if (this.seen > MAX_REPORT_BYTES) {
      this.broken = true;
      return;
    }
    if (!this.sideband) {
      this.inner = Buffer.concat([this.inner, chunk]);
      this.readInner();
      return;
    }
    this.outer = Buffer.concat([this.outer, chunk]);
    for (;;) {
      const line = takePktLine(this.outer);
      if (line === 'more') return;
      if (line === 'bad') {
        this.broken = true;
        return;
      }
      this.outer = this.outer.subarray(line.length);
      // The flush that ends the sideband stream comes after the report's own flush.
      if (line.payload === null || line.payload.length === 0) continue;
      if (line.payload[0] === 1) {
        this.inner = Buffer.concat([this.inner, line.payload.subarray(1)]);
        this.readInner();
        if (this.done || this.broken) return;
      }
    }
  }

  result(): ReportedStatus | undefined {
    return this.done && !this.broken ? { ok: this.ok, failed: this.failed } : undefined;
  }

  private readInner(): void {
    for (;;) {
      const line = takePktLine(this.inner);
      if (line === 'more') return;
      if (line === 'bad') {
        this.broken = true;
        return;
      }
      this.inner = this.inner.subarray(line.length);
      if (line.payload === null) {
        this.done = true;
        return;
      }
      const text = line.payload.toString('utf8').replace(/\n$/, '');
      if (text.startsWith('ok ')) this.ok.add(text.slice(3));
      else if (text.startsWith('ng ')) {
        const rest = text.slice(3);
        const sp = rest.indexOf(' ');
        this.failed.add(sp < 0 ? rest : rest.slice(0, sp));
      }
      // `unpack ...` and report-status-v2's `option ...` lines say nothing more about which ref moved.
    }
  }
}

/** One pkt-line at the start of `buf` (payload null: a flush), 'more' when it is not all there yet. */
function takePktLine(buf: Buffer): { length: number; payload: Buffer | null } | 'more' | 'bad' {
  if (buf.length < 4) return 'more';
  const head = buf.subarray(0, 4).toString('latin1');
  if (!/^[0-9a-f]{4}$/.test(head)) return 'bad';
  const len = Number.parseInt(head, 16);
  if (len === 0) return { length: 4, payload: null };
  // 0001 (delim) and 0002 (response end) are protocol v2's; receive-pack never sends them here.
  if (len < 4) return 'bad';
  if (buf.length < len) return 'more';
  return { length: len, payload: buf.subarray(4, len) };
}
