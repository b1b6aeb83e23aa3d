import type { Agent } from 'node:http';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { CONCURRENT_TRANSFERS, eachLimited, getToFile, postJson, putFile, type LfsObject, type Target } from './lfs-http.js';

const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';
/** git-lfs's `lfs.transfer.batchSize` default: 100 objects per batch request. */
const BATCH_SIZE = 100;

interface BatchAnswer {
  objects?: Array<{ oid: string; size: number; actions?: Record<string, Target>; error?: { code: number; message: string } }>;
}

/**
 * What git-lfs's basic transfer does (git-lfs docs/api/batch.md, basic-transfers.md): batch
 * requests of 100 objects with Basic credentials, then each object's action href with the
 * action's own headers, 8 at a time, then `verify` when the answer asks for it.
 */
export class LfsBasicClient {
  private readonly auth: Record<string, string>;

  /**
   * `lfsUrl`: `<remote>.git/info/lfs`. `throughGateway`: the gateway's URL, to send each action to
   * its path there whatever origin the batch named: with direct transfers on, the same githost
   * then measures the gateway's path beside the shard's (the gateway takes a direct grant as it
   * takes its own; bench/README.md#lfs-git-lfs).
   */
  constructor(private readonly lfsUrl: string, username: string, token: string, private readonly agent: Agent, private readonly throughGateway?: string) {
    this.auth = { authorization: `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`, accept: LFS_MEDIA_TYPE, 'content-type': LFS_MEDIA_TYPE };
  }

  /** Uploads every object the server asks for; the bytes sent. */
  async upload(objects: LfsObject[]): Promise<number> {
    const work = await this.batch('upload', objects);
    let bytes = 0;
    await eachLimited(work, CONCURRENT_TRANSFERS, async ({ object, actions }) => {
      if (!actions.upload) return; // the server has it already
      await putFile(actions.upload, object, this.agent);
      bytes += object.size;
      if (actions.verify) {
        const v = await postJson(actions.verify.href, { ...this.auth, ...actions.verify.header }, { oid: object.oid, size: object.size }, this.agent);
        if (v.status !== 200) throw new Error(`verify ${object.oid}: ${v.status} ${JSON.stringify(v.body)}`);
      }
    });
    return bytes;
  }

  /** Downloads every object into `dir` (sha256 checked), removing each file once whole; the bytes received. */
  async download(objects: LfsObject[], dir: string): Promise<number> {
    const work = await this.batch('download', objects);
    let bytes = 0;
    await eachLimited(work, CONCURRENT_TRANSFERS, async ({ object, actions }) => {
      if (!actions.download) throw new Error(`download ${object.oid}: no download action`);
      const file = join(dir, object.oid);
      await getToFile(actions.download, object, file, this.agent);
      rmSync(file, { force: true });
      bytes += object.size;
    });
    return bytes;
  }

  /** The origins the actions' hrefs name: more than one once direct transfers are on. */
  readonly origins = new Set<string>();

  private routed(actions: Record<string, Target>): Record<string, Target> {
    return Object.fromEntries(
      Object.entries(actions).map(([name, target]) => {
        const href = new URL(target.href);
        const sent = this.throughGateway ? new URL(href.pathname, this.throughGateway).href : target.href;
        this.origins.add(new URL(sent).origin);
        return [name, { ...target, href: sent }];
      }),
    );
  }

  private async batch(operation: 'upload' | 'download', objects: LfsObject[]): Promise<Array<{ object: LfsObject; actions: Record<string, Target> }>> {
    const out: Array<{ object: LfsObject; actions: Record<string, Target> }> = [];
    for (let i = 0; i < objects.length; i += BATCH_SIZE) {
      const chunk = objects.slice(i, i + BATCH_SIZE);
      const res = await postJson(`${this.lfsUrl}/objects/batch`, this.auth, { operation, transfers: ['basic'], objects: chunk.map(({ oid, size }) => ({ oid, size })), hash_algo: 'sha256' }, this.agent);
      if (res.status !== 200) throw new Error(`batch ${operation}: ${res.status} ${JSON.stringify(res.body)}`);
      const byOid = new Map(chunk.map((o) => [o.oid, o]));
      for (const answer of (res.body as BatchAnswer).objects ?? []) {
        if (answer.error) throw new Error(`batch ${operation} ${answer.oid}: ${answer.error.code} ${answer.error.message}`);
        const object = byOid.get(answer.oid);
        if (object) out.push({ object, actions: this.routed(answer.actions ?? {}) });
      }
    }
    return out;
  }
}
