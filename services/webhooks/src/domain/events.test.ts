import { describe, expect, it } from '@jest/globals';
import { actionOf, EVENT_NAMES, MERGE_REQUEST_ACTIONS, parseEvents, selectsEvent } from './events.js';

describe('parseEvents', () => {
  it('when events is omitted, then it defaults to push (seed §4 webhooks rule 3)', () => {
    expect(parseEvents(undefined)).toBe('push');
    expect(parseEvents(null)).toBe('push');
  });

  it('when events is empty or only separators, then it is push (CONTRACT §9)', () => {
    expect(parseEvents('')).toBe('push');
    expect(parseEvents(' , ')).toBe('push');
  });

  it('when names carry spaces or repeat, then they are trimmed and kept once', () => {
    expect(parseEvents(' push , merge_request,push ')).toBe('push,merge_request');
    expect(parseEvents('*')).toBe('*');
    expect(parseEvents('merge_request, merge_request.merged,merge_request')).toBe('merge_request,merge_request.merged');
  });

  it.each(EVENT_NAMES.map((n) => [n]))('when the name is %p (CONTRACT §9), then it is accepted as is', (name) => {
    expect(parseEvents(name)).toBe(name);
  });

  it('when a name is unknown, then it is refused naming it', () => {
    expect(() => parseEvents('push, issues')).toThrow('Unknown event: issues');
    expect(() => parseEvents('PUSH')).toThrow('Unknown event: PUSH');
    expect(() => parseEvents('merge_request.deleted')).toThrow('Unknown event: merge_request.deleted');
    expect(() => parseEvents('merge_request.')).toThrow('Unknown event: merge_request.');
    expect(() => parseEvents('status.*')).toThrow('Unknown event: status.*');
    expect(() => parseEvents('ping')).toThrow('Unknown event: ping');
    expect(() => parseEvents('repository_deleted')).toThrow('Unknown event: repository_deleted');
  });

  it('when events is not a string, then it is refused', () => {
    expect(() => parseEvents(['push'])).toThrow('events must be a string');
    expect(() => parseEvents(1)).toThrow('events must be a string');
  });
});

describe('selectsEvent', () => {
  it('when the list names the kind, then the event is selected', () => {
    expect(selectsEvent('push,merge_request', 'merge_request', 'merged')).toBe(true);
    expect(selectsEvent('push', 'push')).toBe(true);
    expect(selectsEvent('merge_request_review', 'merge_request_review', 'submitted')).toBe(true);
    expect(selectsEvent('merge_request_comment', 'merge_request_comment', 'created')).toBe(true);
    expect(selectsEvent('status', 'status')).toBe(true);
  });

  it('when the list does not name the kind, then it is not selected', () => {
    expect(selectsEvent('push', 'merge_request', 'merged')).toBe(false);
    expect(selectsEvent('merge_request', 'push')).toBe(false);
    expect(selectsEvent('merge_request.*', 'merge_request_review', 'submitted')).toBe(false);
    expect(selectsEvent('merge_request', 'merge_request_comment', 'created')).toBe(false);
    expect(selectsEvent('status', 'push')).toBe(false);
  });

  it('when the list is merge_request, then only the merged action is selected, as the seed delivers', () => {
    expect(selectsEvent('merge_request', 'merge_request', 'merged')).toBe(true);
    for (const action of MERGE_REQUEST_ACTIONS.filter((a) => a !== 'merged')) expect(selectsEvent('merge_request', 'merge_request', action)).toBe(false);
    expect(selectsEvent('merge_request', 'merge_request', undefined)).toBe(false);
  });

  it.each(MERGE_REQUEST_ACTIONS.map((a) => [a]))('when the list is merge_request.%s, then exactly that action is selected', (action) => {
    for (const other of MERGE_REQUEST_ACTIONS) expect(selectsEvent(`merge_request.${action}`, 'merge_request', other)).toBe(other === action);
    expect(selectsEvent(`merge_request.${action}`, 'push')).toBe(false);
  });

  it('when the list is merge_request.*, then every action is selected and nothing else', () => {
    for (const action of MERGE_REQUEST_ACTIONS) expect(selectsEvent('merge_request.*', 'merge_request', action)).toBe(true);
    expect(selectsEvent('merge_request.*', 'push')).toBe(false);
    expect(selectsEvent('merge_request.*', 'status')).toBe(false);
  });

  it('when the list is *, then every kind and every action is selected', () => {
    expect(selectsEvent('*', 'push')).toBe(true);
    for (const action of MERGE_REQUEST_ACTIONS) expect(selectsEvent('*', 'merge_request', action)).toBe(true);
    expect(selectsEvent('*', 'merge_request_review', 'submitted')).toBe(true);
    expect(selectsEvent('*', 'merge_request_comment', 'created')).toBe(true);
    expect(selectsEvent('*', 'status')).toBe(true);
  });

  it('when the kind is not one webhooks receive (repository_deleted, ping, unknown), then even * does not select it', () => {
    expect(selectsEvent('*', 'repository_deleted')).toBe(false);
    expect(selectsEvent('*', 'ping')).toBe(false);
    expect(selectsEvent('*', 'issues')).toBe(false);
  });

  it('when several names match one event (merge_request and merge_request.merged, or duplicates), then it is selected once', () => {
    expect(selectsEvent('merge_request,merge_request.merged,merge_request.*,*', 'merge_request', 'merged')).toBe(true);
    expect(selectsEvent('push,push', 'push')).toBe(true);
  });
});

describe('actionOf', () => {
  it('when the payload has a string action, then it is that; otherwise undefined', () => {
    expect(actionOf({ action: 'opened' })).toBe('opened');
    expect(actionOf({ action: 3 })).toBeUndefined();
    expect(actionOf(null)).toBeUndefined();
    expect(actionOf('x')).toBeUndefined();
  });
});
