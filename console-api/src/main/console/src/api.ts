// Every call to the server goes through here: the token from sessionStorage rides in the
// Authorization header (never in a URL), and a refusal becomes an ApiError with the server's text.

const TOKEN_KEY = 'lodestar.token';
const USER_KEY = 'lodestar.user';

export interface SessionUser {
  username: string;
  globalAdmin: boolean;
  /** false when the server runs with --auth off: nothing to log in to */
  authOn: boolean;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function storedUser(): SessionUser | null {
  const raw = sessionStorage.getItem(USER_KEY);
  return raw ? (JSON.parse(raw) as SessionUser) : null;
}

export function storeSession(accessToken: string | null, user: SessionUser) {
  if (accessToken) sessionStorage.setItem(TOKEN_KEY, accessToken);
  sessionStorage.setItem(USER_KEY, JSON.stringify(user));
}

export function clearSession() {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(USER_KEY);
}

let onExpired: () => void = () => {};
/** Called when the server says the token is missing or no longer valid. */
export function setOnExpired(f: () => void) {
  onExpired = f;
}

export type Params = Record<string, string | number | boolean | undefined | null>;

function query(params?: Params): string {
  if (!params) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null) q.append(k, String(v));
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Params;
  form?: Params;
  body?: BodyInit;
  headers?: Record<string, string>;
}

export async function call(path: string, opts: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const t = token();
  if (t) headers['Authorization'] = 'Bearer ' + t;
  let body: BodyInit | undefined = opts.body;
  if (opts.form) {
    const f = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) {
      if (v !== undefined && v !== null) f.append(k, String(v));
    }
    body = f;
  }
  // never from the browser's cache: a console shows what is stored now (some answers carry Last-Modified)
  const res = await fetch(path + query(opts.query), { method: opts.method ?? 'GET', headers, body, cache: 'no-store' });
  if (!res.ok) {
    const text = (await res.text()).trim();
    if (res.status === 403 && t && /token/i.test(text)) onExpired();
    throw new ApiError(res.status, text || res.statusText);
  }
  return res;
}

export async function getJson<T>(path: string, params?: Params): Promise<T> {
  return (await call(path, { query: params })).json() as Promise<T>;
}

export async function getText(path: string, params?: Params): Promise<string> {
  return (await call(path, { query: params })).text();
}

/** A message fit to show: the server's own words for a refusal. */
export function describe(e: unknown): string {
  if (e instanceof ApiError) return `${e.status}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/**
 * Whether a write on what {@code probe} names would be allowed, without writing anything: the probe
 * is a request the server refuses with 403 when the caller may not write, and otherwise refuses for
 * another reason (a compare-and-set against an md5 no content has, an instance that does not exist).
 */
export async function canWrite(probe: () => Promise<unknown>): Promise<boolean> {
  const user = storedUser();
  if (!user || !user.authOn || user.globalAdmin) return true;
  try {
    await probe();
    return true;
  } catch (e) {
    return !(e instanceof ApiError && e.status === 403);
  }
}

/** A compare-and-set that can never match, so it writes nothing: 409 if allowed, 403 if not. */
export const NEVER_MD5 = '00000000000000000000000000000000';
