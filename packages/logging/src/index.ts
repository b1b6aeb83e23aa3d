import { pino, type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
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

/** One JSON line per event, snake_case fields, service name on every line. LOG_LEVEL sets the level. */
export function createLogger(service: string, level = sink?.level ?? process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info')): Logger {
  const options = { level, base: { service }, messageKey: 'msg', timestamp: pino.stdTimeFunctions.isoTime };
  return pino(options, sink ? sink.destination : stdoutDestination());
}

/** A request id is kept when the caller sent a sane one, otherwise generated. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const id = Array.isArray(given) ? given[0] : given;
  return id && /^[\w.:-]{1,128}$/.test(id) ? id : randomUUID();
}

/** express/http middleware: one log line per request carrying the request id, echoed back in X-Request-Id. */
export function httpLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const id = requestIdOf(req);
      req.headers[REQUEST_ID_HEADER] = id;
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customAttributeKeys: { reqId: 'request_id', responseTime: 'duration_ms' },
    // Binds request_id on the request's logger (req.log) and so on the completion line; without
    // it pino-http keeps the id only inside its default req serializer, which ours replaces.
    quietReqLogger: true,
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
  });
}
