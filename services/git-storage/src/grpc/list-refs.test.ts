import { describe, expect, it } from '@jest/globals';
import { storageProto } from '@githost/protos';
import { encodeListRefsResponse } from './list-refs.js';

const method = storageProto().githost.storage.v1.StorageService.service.ListRefs;
const sha = (n: number) => n.toString(16).padStart(40, '0');

describe('ListRefs answer encoding', () => {
  it('when refs of every kind are encoded, then protobufjs decodes exactly them, as it decodes its own encoding', () => {
    const refs = [
      { name: 'refs/heads/main', target: sha(1), peeled: '' },
      { name: 'refs/heads/ünï/cödé-\u{1F600}', target: sha(2), peeled: '' },
      { name: 'refs/tags/v1', target: sha(3), peeled: sha(4) },
      // Lengths past one and two varint bytes.
      { name: `refs/heads/${'x'.repeat(200)}`, target: sha(5), peeled: '' },
      { name: `refs/tags/${'y'.repeat(20_000)}`, target: sha(6), peeled: sha(7) },
      ...Array.from({ length: 3000 }, (_, i) => ({ name: `refs/heads/b${i}`, target: sha(i + 10), peeled: i % 7 === 0 ? sha(i) : '' })),
    ];
    const ours = method.responseDeserialize(encodeListRefsResponse({ refs }));
    expect(ours).toEqual({ refs });
    expect(ours).toEqual(method.responseDeserialize(method.responseSerialize({ refs })));
  });

  it('when there are no refs, then the answer is empty, as protobufjs writes it', () => {
    expect(encodeListRefsResponse({ refs: [] })).toEqual(method.responseSerialize({ refs: [] }));
    expect(method.responseDeserialize(encodeListRefsResponse({}))).toEqual({ refs: [] });
  });
});
