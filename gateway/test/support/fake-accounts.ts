import { accountsProto, type AccountsServiceHandlers } from '@githost/protos';
import { grpc, startGrpcServer, unary, type GrpcListening } from '@githost/grpc';
import { notFound, unauthenticated } from '@githost/errors';

/** A real gRPC server speaking the accounts proto from a fixed table, counting calls, for
 *  testing the gateway alone. */
export interface FakeUser {
  id: string;
  username: string;
  token: string;
  is_admin?: boolean;
  /** The token's scopes; default read and write, plus admin for site admins. */
  scopes?: string[];
  /** Suspended: Authorize answers UNAUTHENTICATED (as accounts does). */
  suspended?: boolean;
}

export interface FakeRepo {
  id: string;
  owner: string;
  name: string;
  private: boolean;
  /** Default `main`. */
  defaultBranch?: string;
  /** user id -> permission; the owner gets `admin`. */
  collaborators: Record<string, 'read' | 'write'>;
}

export interface FakeAccounts {
  address: string;
  calls: { authenticate: number; authorize: number };
  users: FakeUser[];
  repos: FakeRepo[];
  close(): Promise<void>;
}

/** `secret`: the internal secret the gateway under test signs its calls with. */
export async function startFakeAccounts(users: FakeUser[], repos: FakeRepo[], secret: string, adminToken = 'bootstrap-admin-token-123'): Promise<FakeAccounts> {
  const calls = { authenticate: 0, authorize: 0 };
  const handlers: Partial<AccountsServiceHandlers> = {
    Authenticate: unary(async (req) => {
      calls.authenticate++;
      if (req.token === adminToken) return { bootstrap_admin: true, scopes: ['read', 'write', 'admin'] };
      const user = users.find((u) => u.token === req.token);
      if (!user) throw unauthenticated('Invalid token');
      const scopes = user.scopes ?? (user.is_admin ? ['read', 'write', 'admin'] : ['read', 'write']);
      return { user: { id: user.id, username: user.username, email: `${user.username}@example.com`, is_admin: !!user.is_admin }, scopes };
    }),
    Authorize: unary(async (req) => {
      calls.authorize++;
      const repo = repos.find((r) => r.owner === req.owner && r.name === req.name);
      if (!repo) throw notFound('Repository not found');
      const owner = users.find((u) => u.username === repo.owner);
      const caller = users.find((u) => u.id === req.user_id);
      if (caller?.suspended) throw unauthenticated();
      const siteAdmin = !!caller?.is_admin && !req.without_site_admin;
      const permission = req.bootstrap_admin || siteAdmin || (owner && owner.id === req.user_id) ? 'admin' : (repo.collaborators[req.user_id] ?? (repo.private ? 'none' : 'read'));
      return {
        repository: { id: repo.id, owner: repo.owner, name: repo.name, default_branch: repo.defaultBranch ?? 'main', private: repo.private, shard: 'default', description: '', owner_id: owner?.id ?? '', created_at: '' },
        permission,
      };
    }),
  };
  const listening: GrpcListening = await startGrpcServer((server: grpc.Server) => {
    server.addService(accountsProto().githost.accounts.v1.AccountsService.service, handlers as grpc.UntypedServiceImplementation);
  }, 0, '127.0.0.1', [], secret);
  return { address: `127.0.0.1:${listening.port}`, calls, users, repos, close: () => listening.close(100) };
}
