import { pino, type Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type { Logger };

export const REQUEST_ID_HEADER = 'x-request-id';

/** Where loggers write instead of stdout, and at what level (see setLogSink). */
export interface LogSink {
  destination: pino.DestinationStream;
  level?: string;
}

let sink: LogSink | undefined;

/**
 * Sends the lines of loggers created from now on to `next` (undefined: back to stdout). The
 * launcher builds every service's logger itself, so this is how a process embedding it (an
 * end-to-end test following one request id across services) collects all their lines.
 */
export function setLogSink(next: LogSink | undefined): void {
  sink = next;
}

/** The sink loggers created now would write to (undefined: stdout). */
export function currentLogSink(): LogSink | undefined {
  return sink;
}

let stdout: pino.DestinationStream | undefined;

/**
 * Every logger of the process writes stdout through this one asynchronous writer: a request's log
 * line costs no write(2) of its own (lines queued while a write is under way go out together), and
 * with a single writer, lines of the services sharing a process never interleave mid-line. pino
 * flushes it synchronously on exit, so a crash or a stop loses nothing.
 */
function stdoutDestination(): pino.DestinationStream {
  return (stdout ??= pino.destination({ dest: 1, sync: false }));
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * The `time` field pino's `isoTime` writes (`,"time":"2026-11-30T06:04:03.845Z"`), made from the
 * UTC fields rather than `Date.prototype.toISOString`: node 20's V8 looks up the local time zone's
 * name through ICU before it formats even an ISO date, and that first lookup pages about 1 MiB of
 * ICU's time zone data and code into the process for good (docs/decisions/ssh-server.md#what-is-resident-nodes-own-pages).
 * Years outside 0-9999 (never a clock's) keep toISOString's extended form.
 */
export function isoTime(now = Date.now()): string {
  const d = new Date(now);
  const year = d.getUTCFullYear();
  if (year < 0 || year > 9999) return `,"time":"${d.toISOString()}"`;
  return `,"time":"${pad(year, 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}Z"`;
}

/** One JSON line per event, snake_case fields, service name on every line. LOG_LEVEL sets the level. */
export function createLogger(service: string, level = sink?.level ?? process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info')): Logger {
  const options = { level, base: { service }, messageKey: 'msg', timestamp: isoTime };
  return pino(options, sink ? sink.destination : stdoutDestination());
}

/** A request id is kept when the caller sent a sane one, otherwise generated. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const id = Array.isArray(given) ? given[0] : given;
  return id && /^[\w.:-]{1,128}$/.test(id) ? id : randomUUID();
}

/**
 * express/http middleware: one log line per request carrying the request id, echoed back in
 * X-Request-Id; `req.log` is a logger bound to the request id. Hand-rolled rather than pino-http,
 * which builds two child loggers (each serialising its bindings) for every request: here the line
 * is written straight from the parent logger and `req.log` is built only if something logs.
 */
export function httpLogger(logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse, next?: () => void): void => {
    const id = requestIdOf(req);
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader('X-Request-Id', id);
    const start = Date.now();
    // Routers rewrite req.url while they run; the line names the URL as it arrived.
    const { method, url } = req;
    let bound: Logger | undefined;
    Object.defineProperty(req, 'log', { configurable: true, get: () => (bound ??= logger.child({ request_id: id })) });
    // 'close' follows 'finish' on every response, and is the only event when the client left first.
    res.on('close', () => {
      const line = { request_id: id, req: { method, url }, res: { status: res.statusCode }, duration_ms: Date.now() - start };
      if (!res.writableFinished) logger.info(line, 'request aborted');
      else if (res.statusCode >= 500) logger.info(line, 'request errored');
      else logger.info(line, 'request completed');
    });
    next?.();
  };
}
