import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_HEADER_BYTES, MAX_URL_BYTES } from './request-target.js';

/** What node parses before it gives up (its maxHeaderSize counts the request line and the whole
 *  header block): room for the longest URL and header block we admit, so those are refused by
 *  `refuseMalformedTarget` with a JSON 414 or 431. */
export const PARSER_HEADER_LIMIT = 4 * (MAX_URL_BYTES + MAX_HEADER_BYTES);

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };
const MESSAGE: Record<number, string> = { 400: 'Bad request', 408: 'Request timeout', 413: 'Request body too large', 431: 'Request header fields too large' };

/**
 * Lets node's parser read requests up to `PARSER_HEADER_LIMIT`, and answers what it still
 * refuses (a request line or header block past that, a request that does not parse) with the
 * JSON error body every answer of ours carries (CONTRACT §4) instead of node's bare status.
 */
export function answerOversizedRequests(server: Server): void {
  // The server may be the launcher's, made before this limit was known: node reads the option
  // from the server object for every new connection (lib/_http_server.js), so it is set there.
  (server as Server & { maxHeaderSize?: number }).maxHeaderSize = PARSER_HEADER_LIMIT;
  // node drops the fields past maxHeadersCount without a word (2,000 by default: 2,500 tiny ones
  // passed, seen as fewer and under the byte limit; a lower count drops Host, which node answers
  // with a bare 400). Unlimited here: the header block is bounded by maxHeaderSize above, and
  // `refuseMalformedTarget` answers more than MAX_HEADER_FIELDS with a JSON 431.
  server.maxHeadersCount = 0;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status =
      err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? 413 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ error: MESSAGE[status] });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
