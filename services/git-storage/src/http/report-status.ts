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
 * can tell what happened (services/git-storage/README.md#push-events-survive-a-kill).
 */
export class ReportStatusReader {
  /** receive-pack's side-band frames, when asked for. */
  private readonly frames = new PktLineSplitter();
  /** The report's own pkt-lines. */
  private readonly lines = new PktLineSplitter();
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
      this.readReport(chunk);
      return;
    }
    // Band 1 carries the report; progress (2), errors (3), keep-alives and the flush that ends the
    // side-band stream after the report's own flush are skipped.
    if (!this.frames.feed(chunk, (frame) => frame !== null && frame[0] === 1 && this.readReport(frame.subarray(1)))) this.broken = true;
  }

  result(): ReportedStatus | undefined {
    return this.done && !this.broken ? { ok: this.ok, failed: this.failed } : undefined;
  }

  /** True once the report has ended or proved not to be one. */
  private readReport(bytes: Buffer): boolean {
    if (!this.lines.feed(bytes, (line) => this.reportLine(line))) this.broken = true;
    return this.done || this.broken;
  }

  private reportLine(line: Buffer | null): boolean {
    if (line === null) {
      this.done = true;
      return true;
    }
    const text = line.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('ok ')) this.ok.add(text.slice(3));
    else if (text.startsWith('ng ')) {
      const rest = text.slice(3);
      const sp = rest.indexOf(' ');
      this.failed.add(sp < 0 ? rest : rest.slice(0, sp));
    }
    // `unpack ...` and report-status-v2's `option ...` lines say nothing more about which ref moved.
    return false;
  }
}

/** Splits a byte stream into pkt-lines, keeping a line cut between chunks for the next one. */
class PktLineSplitter {
  private buf: Buffer = Buffer.alloc(0);

  /**
   * Hands each whole line to `line` (null: a flush) until it returns true; false when the bytes
   * are not pkt-lines.
   */
  feed(chunk: Buffer, line: (payload: Buffer | null) => boolean): boolean {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    while (this.buf.length >= 4) {
      const head = this.buf.subarray(0, 4).toString('latin1');
      if (!/^[0-9a-f]{4}$/.test(head)) return false;
      const len = Number.parseInt(head, 16);
      // 0001 (delim) and 0002 (response end) are protocol v2's; receive-pack never sends them here.
      if (len > 0 && len < 4) return false;
      if (this.buf.length < len) return true;
      const payload = len === 0 ? null : this.buf.subarray(4, len);
      this.buf = this.buf.subarray(len === 0 ? 4 : len);
      if (line(payload)) return true;
    }
    return true;
  }
}
