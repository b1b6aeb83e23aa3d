import { describe, expect, it } from '@jest/globals';
import { giteaIdOf } from '@githost/gitea-ids';
import { giteaEvents, githostEvents, toCreateHook, toEditHook, toGiteaHook } from './map-hook.js';

describe('toGiteaHook', () => {
  it('maps a githost webhook field by field', () => {
    expect(
      toGiteaHook({ id: 'h-uuid', url: 'https://ci.example/hook', events: 'push,merge_request.*,status', type: 'gitea', is_active: true, created_at: '2026-11-03T10:00:00.000Z' }),
    ).toEqual({
      id: giteaIdOf('hook', 'h-uuid'),
      type: 'gitea',
      branch_filter: '*',
      config: { url: 'https://ci.example/hook', content_type: 'json', http_method: 'post' },
      events: ['push', 'create', 'delete', 'pull_request', 'pull_request_sync', 'pull_request_review_request', 'status'],
      authorization_header: '',
      active: true,
      updated_at: '2026-11-03T10:00:00.000Z',
      created_at: '2026-11-03T10:00:00.000Z',
    });
  });
});

describe('events', () => {
  it('githost -> Gitea', () => {
    expect(giteaEvents('merge_request')).toEqual(['pull_request']);
    expect(giteaEvents('merge_request_review,merge_request_comment')).toEqual(['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment', 'pull_request_comment']);
    expect(giteaEvents('*')).toEqual(expect.arrayContaining(['push', 'create', 'delete', 'pull_request', 'pull_request_sync', 'status', 'pull_request_comment']));
  });

  it('Gitea -> githost; events of missing units are dropped', () => {
    expect(githostEvents(['push', 'create', 'pull_request', 'issues', 'release'])).toBe('push,merge_request.opened,merge_request.edited,merge_request.closed,merge_request.reopened,merge_request.merged');
    expect(githostEvents(['status', 'pull_request_sync', 'pull_request_review_approved', 'pull_request_review_rejected'])).toBe('status,merge_request.synchronize,merge_request_review');
    expect(githostEvents(['pull_request_review_request'])).toBe('merge_request.review_requested,merge_request.review_request_removed');
    expect(giteaEvents('merge_request.review_requested')).toEqual(['pull_request_review_request']);
    expect(githostEvents(['issues', 'wiki', 'constructor'])).toBeNull();
  });

  it('round-trips the events githost keeps', () => {
    const names = ['push', 'create', 'delete', 'pull_request', 'pull_request_sync', 'pull_request_review_request', 'status'];
    expect(giteaEvents(githostEvents(names)!)).toEqual(expect.arrayContaining(names));
  });
});

describe('toCreateHook', () => {
  it('reads Gitea\'s type, config, events and active', () => {
    expect(toCreateHook({ type: 'gitea', config: { url: 'https://ci.example/h', content_type: 'json', secret: 's3' }, events: ['push', 'pull_request'], active: true, branch_filter: '*' })).toEqual({
      create: { url: 'https://ci.example/h', secret: 's3', events: 'push,merge_request.opened,merge_request.edited,merge_request.closed,merge_request.reopened,merge_request.merged', type: 'gitea' },
      active: true,
    });
    expect(toCreateHook({ type: 'slack', config: { url: 'https://hooks.example/x' } })).toEqual({ create: { url: 'https://hooks.example/x', events: 'push', type: 'slack' }, active: false });
  });

  it('refuses what githost cannot send', () => {
    expect(() => toCreateHook({ type: 'discord', config: { url: 'https://x' } })).toThrow('Invalid hook type');
    expect(() => toCreateHook({ type: 'gitea', config: {} })).toThrow('Missing config option: url');
    expect(() => toCreateHook({ type: 'gitea', config: { url: 'https://x', content_type: 'form' } })).toThrow('Invalid content type');
    expect(() => toCreateHook({ type: 'gitea', config: { url: 'https://x' }, branch_filter: 'main' })).toThrow('no branch filter');
    expect(() => toCreateHook({ type: 'gitea', config: { url: 'https://x' }, authorization_header: 'Bearer x' })).toThrow('no authorization header');
    expect(() => toCreateHook({ type: 'gitea', config: { url: 'https://x' }, events: ['issues'] })).toThrow('githost sends none of these events: issues');
  });
});

describe('toEditHook', () => {
  it('changes only what is given', () => {
    expect(toEditHook({})).toEqual({});
    expect(toEditHook({ active: false })).toEqual({ is_active: false });
    expect(toEditHook({ config: { url: 'https://new', secret: '' }, events: ['status'] })).toEqual({ url: 'https://new', secret: null, events: 'status' });
  });
});
