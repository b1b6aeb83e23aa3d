/** A minimal JSON client for the githost REST API (the benchmark's setup steps, not its timings). */
export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export class Api {
  constructor(readonly baseUrl: string, private readonly token?: string) {}

  as(token: string): Api {
    return new Api(this.baseUrl, token);
  }

  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** Throws unless the status is the expected one, with the body in the message. */
  async expect<T = unknown>(status: number, method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request<T>(method, path, body);
    if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
}

export interface BenchUser {
  username: string;
  token: string;
  api: Api;
}

/** A site admin creates the user and its token (CONTRACT §8). */
export async function createUser(admin: Api, username: string): Promise<BenchUser> {
  await admin.expect(201, 'POST', '/api/admin/users', { username, email: `${username}@bench.example` });
  const { token } = await admin.expect<{ token: string }>(201, 'POST', `/api/admin/users/${username}/tokens`, { name: 'bench' });
  return { username, token, api: admin.as(token) };
}

export async function createRepo(user: BenchUser, name: string): Promise<{ id: string; name: string }> {
  return user.api.expect<{ id: string; name: string }>(201, 'POST', '/api/repos', { name });
}

export function gitUrl(baseUrl: string, user: BenchUser, repo: string): string {
  const u = new URL(baseUrl);
  u.username = user.username;
  u.password = user.token;
  u.pathname = `/${user.username}/${repo}.git`;
  return u.toString();
}
