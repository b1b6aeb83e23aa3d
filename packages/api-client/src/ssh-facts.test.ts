import { describe, expect, it } from '@jest/globals';
import { sshCloneUrl, sshFactsOf } from './ssh-facts.js';

describe('SSH clone URLs (README.md#ssh)', () => {
  it('when the port is 22, then the scp form; otherwise the ssh:// form with the port, on the public host', () => {
    expect(sshCloneUrl('https://git.example.com', { port: 22, hostKeys: [] }, 'alice', 'demo')).toBe('git@git.example.com:alice/demo.git');
    expect(sshCloneUrl('http://localhost:3000', { port: 2222, hostKeys: [] }, 'alice', 'demo')).toBe('ssh://git@localhost:2222/alice/demo.git');
  });

  it('when no SSH service is configured or it does not answer, then there are no facts', async () => {
    expect(await sshFactsOf(undefined)).toBeNull();
    expect(await sshFactsOf('http://127.0.0.1:1')).toBeNull();
  });
});
