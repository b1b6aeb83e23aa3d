import { startReceiver as startShared, statusByPath, type Receiver } from '@githost/test-support';

/** A real local webhook receiver that records every request and answers 204 without a body, or
 *  what `statusFor` says for the request's path; signatures are checked when `secret` is given. */
export function startReceiver<B = Record<string, unknown>>(statusFor?: (path: string) => number, secret?: string): Promise<Receiver<B>> {
  return startShared<B>({ secret, answer: statusByPath(statusFor) });
}
