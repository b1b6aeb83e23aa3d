import type { IncomingMessage } from 'node:http';
import type { Principal, RepoContext } from '@githost/identity';
import type { UpstreamName } from './config.js';
import type { AnswerPending } from './edge-cache/answers.js';
import type { Pending } from './edge-cache/validators.js';
import type { RouteMatch } from './admission/routes.js';
import type { RateClient } from './admission/rate-limit.js';

/** What admission decided about a request: where it goes and as whom. */
export interface Admission {
  route: RouteMatch;
  /** The caller a valid credential names; null when anonymous. */
  principal: Principal | null;
  /** The repository the route names, with the caller's permission; null on routes without one. */
  repo: RepoContext | null;
  requestId: string;
  /** Drops the cached access this request's success makes stale; run once a 2xx answer arrives. */
  staleOnSuccess?: () => void;
  /** A Gitea read admitted unrefused: whom an answer from the edge counts against (the face's own calls count otherwise). */
  rateClient?: RateClient;
}

/**
 * Everything the gateway knows about one admitted request, read again when the upstream answers
 * (the proxy's shard router and answer hook see only the request) and when the answer is counted.
 */
export interface RequestState extends Admission {
  /** A browse read whose 200 answer's validators the edge keeps, with the refs version read before forwarding. */
  edgePending?: Pending;
  /** A browse GET whose whole 200 answer the edge keeps (edge-cache/answers.ts). */
  answerPending?: AnswerPending;
  /** Set when the request is handed to its upstream's proxy. */
  forwardedTo?: UpstreamName;
  /** Answered by the edge itself (a 304, or a kept browse answer). */
  answeredAtEdge?: boolean;
}

// Keyed by the request object, so the state goes with it; never exposed as a header or a field a
// client could set.
const states = new WeakMap<IncomingMessage, RequestState>();

export function attachState(req: IncomingMessage, admission: Admission): RequestState {
  const state: RequestState = { ...admission };
  states.set(req, state);
  return state;
}

/** The request's state; undefined until it is admitted (refused requests have none). */
export function stateOf(req: IncomingMessage): RequestState | undefined {
  return states.get(req);
}
