import { describe, expect, it } from '@jest/globals';
import { parseEvents, selectsEvent } from './events.js';

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
  });

  it('when a name is unknown, then it is refused naming it', () => {
    expect(() => parseEvents('push, issues')).toThrow('Unknown event: issues');
    expect(() => parseEvents('PUSH')).toThrow('Unknown event: PUSH');
  });

  it('when events is not a string, then it is refused', () => {
    expect(() => parseEvents(['push'])).toThrow('events must be a string');
    expect(() => parseEvents(1)).toThrow('events must be a string');
  });
});

describe('selectsEvent', () => {
  it('when the list names the kind, then the event is selected', () => {
    expect(selectsEvent('push,merge_request', 'merge_request')).toBe(true);
    expect(selectsEvent('push', 'push')).toBe(true);
  });

  it('when the list does not name the kind, then it is not selected', () => {
    expect(selectsEvent('push', 'merge_request')).toBe(false);
    expect(selectsEvent('merge_request', 'push')).toBe(false);
  });

  it('when the list is *, then every kind is selected', () => {
    expect(selectsEvent('*', 'push')).toBe(true);
    expect(selectsEvent('*', 'merge_request')).toBe(true);
  });
});
