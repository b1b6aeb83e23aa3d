import type { Express, Request } from 'express';
import { validation } from '@githost/errors';
import { route } from '@githost/http';
import type { AccountsDeps } from '../domain/deps.js';
import { deleteBranchProtection, getBranchProtection, listBranchProtections, putBranchProtection } from '../domain/protections.js';
import { callerOf, repoAccessOf } from './caller.js';
import { protectionJson } from './present.js';

const LIST = /^\/api\/repos\/[^/]+\/[^/]+\/branch-protections\/?$/;
// No capturing group: the router would percent-decode it and answer a bad escape with a 500.
const ONE = /^\/api\/repos\/[^/]+\/[^/]+\/branch-protections\/.+$/;
const PREFIX = /^\/api\/repos\/[^/]+\/[^/]+\/branch-protections\//;

/**
 * The pattern is the rest of the path, so `release/*` may arrive with a raw slash or encoded
 * (`release%2F*`); it is percent-decoded once, as browse decodes `ref_and_path` (CONTRACT §9).
 */
function patternOf(req: Request): string {
  const raw = req.path.replace(PREFIX, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    throw validation(`Invalid branch pattern: ${JSON.stringify(raw)} (a branch name, * and ** allowed)`);
  }
}

/** docs/decisions/branch-protection.md: `/api/repos/{owner}/{repo}/branch-protections[/{pattern}]`. */
export function registerProtectionRoutes(app: Express, deps: AccountsDeps): void {
  app.get(LIST, route(async (_req, res) => {
    callerOf(res);
    res.json((await listBranchProtections(deps, repoAccessOf(res))).map(protectionJson));
  }));

  app.get(ONE, route(async (req, res) => {
    callerOf(res);
    res.json(protectionJson(await getBranchProtection(deps, repoAccessOf(res), patternOf(req))));
  }));

  // RFC 9110 §9.3.4: 201 when the PUT created the rule, 200 when it replaced one.
  app.put(ONE, route(async (req, res) => {
    callerOf(res);
    const { rule, created } = await putBranchProtection(deps, repoAccessOf(res), patternOf(req), req.body);
    res.status(created ? 201 : 200).json(protectionJson(rule));
  }));

  app.delete(ONE, route(async (req, res) => {
    callerOf(res);
    await deleteBranchProtection(deps, repoAccessOf(res), patternOf(req));
    res.status(204).end();
  }));
}
