import { createHash } from 'node:crypto';
import { compareNames } from '@githost/git-records';
import type { RawRef } from './refs.js';

/**
 * The seed's whole branch list and CONTRACT §8's whole tag list, written as they are built
 * (docs/decisions/ref-pages.md#the-whole-list-streamed): at 110,000 refs the answer is 8.6 MB,
 * and building it as one string before the first byte cost its time and its memory per request.
 */

const HEADS = 'refs/heads/';
const TAGS = 'refs/tags/';

/** Records per written piece: about 40 KB of JSON, a few socket writes' worth. */
export const RECORDS_PER_CHUNK = 512;

/**
 * A JSON answer produced piece by piece as the socket takes it. Its pieces joined are exactly the
 * bytes `JSON.stringify` gave for the whole value, so the answer is the one it always was.
 */
export interface StreamedJson<Chunks = Iterable<string>> {
  readonly streamed: true;
  /** Pieces built as they are asked for: the lists' at once, a tree's as git-storage's arrive (AsyncIterable). */
  chunks(): Chunks;
  /** Ends what an answer that is not sent holds (a HEAD's): its read from git-storage. */
  cancel?(): void;
}

/** One kind's refs in the answer's order (name bytes, as git sorts), and their validator. */
export interface RefList {
  /** Full names, all under one prefix, in byte order of the names. */
  readonly refs: readonly RawRef[];
  /** A digest of every name, target and peeled id in `refs`: same refs, same digest. Computed on first use. */
  readonly digest: string;
}

/** Orders `refs` (one prefix, so the order of the names without it) and digests them when asked. */
export function refListOf(refs: readonly RawRef[]): RefList {
  // git-storage lists refs in this order already: a sort of sorted input is one pass.
  return listOfSorted([...refs].sort((a, b) => compareNames(a.name, b.name)));
}

/** A list already in order, its digest computed once, when the whole list's validator first needs it. */
export function listOfSorted(refs: readonly RawRef[]): RefList {
  let digest: string | undefined;
  return {
    refs,
    get digest() {
      digest ??= digestOf(refs);
      return digest;
    },
  };
}

/** A branch's record in the seed's lists (§4 browsing rule 7), paged or whole. */
export function branchRecordOf(r: RawRef, defaultBranch: string): { name: string; sha: string; isDefault: boolean } {
  const name = r.name.slice(HEADS.length);
  return { name, sha: r.target, isDefault: name === defaultBranch };
}

/** A tag's record (CONTRACT §8/§9): sha peeled to the commit, tag_sha for an annotated tag. */
export function tagRecordOf(r: RawRef): { name: string; sha: string; tag_sha?: string } {
  const name = r.name.slice(TAGS.length);
  return r.peeled ? { name, sha: r.peeled, tag_sha: r.target } : { name, sha: r.target };
}

/**
 * The validator's input is what the answer is a function of, hashed without serialising the
 * answer, so it is known before the first byte; kept with the ref snapshot, a warm read does not
 * compute it again (110,000 refs: sort and digest 27-54 ms, about JSON.stringify and the body's
 * sha1 together). NUL and LF never occur in a ref name or an object id.
 */
function digestOf(refs: readonly RawRef[]): string {
  const hash = createHash('sha1');
  for (let i = 0; i < refs.length; i += RECORDS_PER_CHUNK) {
    let text = '';
    for (const r of refs.slice(i, i + RECORDS_PER_CHUNK)) text += `${r.name}\0${r.target}\0${r.peeled}\n`;
    hash.update(text);
  }
  return hash.digest('base64url');
}

/** seed §4 browsing rule 7: `{branches: [{name, sha, isDefault}], default_branch}`, as JSON.stringify writes it. */
export function branchListJson(list: RefList, defaultBranch: string): string | StreamedJson {
  return listJson('{"branches":[', list.refs, (r) => branchRecordOf(r, defaultBranch), `],"default_branch":${JSON.stringify(defaultBranch)}}`);
}

/** CONTRACT §8/§9 tags: `{tags: [{name, sha, tag_sha?}]}`, sha peeled to the commit. */
export function tagListJson(list: RefList): string | StreamedJson {
  return listJson('{"tags":[', list.refs, tagRecordOf, ']}');
}

/**
 * A list that fits one piece is one string (sent whole, with its length, and kept by the edge as
 * before); a longer one streams. Each piece is JSON.stringify of its records without the
 * brackets, so the joined pieces are byte for byte JSON.stringify of the whole object.
 */
function listJson(head: string, refs: readonly RawRef[], record: (r: RawRef) => object, tail: string): string | StreamedJson {
  const piece = (from: number) => JSON.stringify(refs.slice(from, from + RECORDS_PER_CHUNK).map(record)).slice(1, -1);
  if (refs.length <= RECORDS_PER_CHUNK) return head + piece(0) + tail;
  return {
    streamed: true,
    *chunks() {
      for (let i = 0; i < refs.length; i += RECORDS_PER_CHUNK) {
        const last = i + RECORDS_PER_CHUNK >= refs.length;
        yield (i === 0 ? head : ',') + piece(i) + (last ? tail : '');
      }
    },
  };
}
