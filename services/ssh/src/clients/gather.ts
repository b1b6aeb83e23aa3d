import type { Readable, Writable } from 'node:stream';

/** The largest SSH packet payload OpenSSH accepts on a session channel (its CHAN_SES_PACKET_DEFAULT). */
export const SSH_PACKET_PAYLOAD = 32 * 1024;

/** Most bytes gathered into one write: four full packets, sent in one system call when corked. */
export const GATHER_BYTES = 4 * SSH_PACKET_PAYLOAD;

/** Runs `write` with the connection's socket corked: the SSH packets it makes leave in one `writev`. */
export type Corked = (write: () => boolean) => boolean;

/**
 * Pipes `from` into `to` (not ending it), writing what arrived together as one chunk of up to
 * `size` bytes. git-storage's answer comes as HTTP chunks of git's pipe reads, often 8 KiB
 * (upload-pack's side-band packets), and ssh2 makes one SSH packet of each write (split at the
 * client's largest packet): one cipher call, one random padding and one socket write (a system
 * call) per chunk. The chunks of one socket read of the HTTP response are delivered in the same
 * tick, so they are gathered until that tick's microtasks run: fewer, fuller packets, and no added
 * wait. With `corked`, the packets of one write leave the socket together
 * (docs/decisions/ssh-server.md#the-clone-path).
 */
export function pipeGathered(from: Readable, to: Writable, size = GATHER_BYTES, corked: Corked = (write) => write()): void {
  let pending: Buffer[] = [];
  let bytes = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (bytes === 0) return;
    const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending, bytes);
    pending = [];
    bytes = 0;
    if (!corked(() => to.write(chunk)) && !from.isPaused()) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  };
  from.on('data', (chunk: Buffer) => {
    pending.push(chunk);
    bytes += chunk.length;
    if (bytes >= size) flush();
    else if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
  });
  // Before any later 'end' listener (the exit status follows the last bytes).
  from.on('end', flush);
}
