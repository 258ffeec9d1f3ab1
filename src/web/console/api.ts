/**
 * The console's transport: its sign-in routes (/console/api) and the public GraphQL API, over
 * HTTP and graphql-ws, with the sign-in cookie (sent by the browser) and the CSRF token (kept in
 * memory only, fetched again after a reload).
 */
import { createClient, type Client } from 'graphql-ws';

/** Operator roles, least first. */
export type Role = 'viewer' | 'reviewer' | 'admin';

/** The signed-in operator as the sign-in routes describe it. */
export interface SignIn {
  operator: {
    id: string;
    tenant_id: string;
    email: string;
    name: string;
    role: Role;
    /** An admin chose the password: the console asks for a new one before anything else. */
    temporary_credential?: boolean;
    totp_enabled?: boolean;
  };
  environment: 'live' | 'sandbox';
  csrf_token: string;
}

/** One invalid field of a refused input, as the server names it (`name`, `nodes[1].type`). */
export interface FieldError {
  field: string;
  message: string;
}

/** A refusal the server answered: its catalogue code, message and, for validation, the fields at fault. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
  }
}

let csrfToken = '';

/** Calls one of the sign-in routes; problem details become an ApiError. */
async function consoleApi<T>(method: string, path: string, body?: unknown): Promise<T | null> {
  const response = await fetch(`/console/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: { ...(csrfToken ? { 'x-csrf-token': csrfToken } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null;
  const answer = (await response.json()) as T & { code?: string; detail?: string };
  if (!response.ok) throw new ApiError(answer.code ?? 'error', answer.detail ?? `The server answered ${response.status}.`);
  return answer;
}

/** The current sign-in after a reload, or null when there is none. */
export async function currentSignIn(): Promise<SignIn | null> {
  try {
    const signIn = await consoleApi<SignIn>('GET', '/session');
    csrfToken = signIn?.csrf_token ?? '';
    return signIn;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'unauthenticated') return null;
    throw error;
  }
}

/** Signs in; the browser keeps the cookie, this module the CSRF token. */
export async function signIn(email: string, password: string, environment: string, totpCode?: string): Promise<SignIn> {
  const answer = (await consoleApi<SignIn>('POST', '/sign-in', {
    email,
    password,
    environment,
    ...(totpCode ? { totp_code: totpCode } : {}),
  }))!;
  csrfToken = answer.csrf_token;
  return answer;
}

/** Signs out: the cookie stops working on the server at once. */
export async function signOut(): Promise<void> {
  await consoleApi('POST', '/sign-out');
  csrfToken = '';
}

/** Moves the sign-in to another environment. */
export async function switchEnvironment(environment: string): Promise<void> {
  await consoleApi('PUT', '/environment', { environment });
}

/** Runs one GraphQL operation with the cookie and the CSRF header. */
export async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as {
    data?: T;
    errors?: { message: string; extensions?: { code?: string; fieldErrors?: FieldError[] } }[];
  };
  const [first] = body.errors ?? [];
  if (first) throw new ApiError(first.extensions?.code ?? 'error', first.message, first.extensions?.fieldErrors ?? []);
  return body.data as T;
}

/** Opens the graphql-ws connection (the cookie rides on the upgrade, the CSRF token in connection_init). */
export function openSocket(onConnected: () => void): Client {
  return createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: () => ({ 'x-csrf-token': csrfToken }),
    lazy: false,
    retryAttempts: 5,
    on: { connected: onConnected },
  });
}

/**
 * Downloads one of the console's exports (/console/api/exports/…, a case report): the request
 * carries the CSRF header like every other, so the file is fetched and handed to the browser as a
 * download; a refusal becomes an ApiError.
 */
export async function download(path: string): Promise<void> {
  const response = await fetch(`/console/api${path}`, { credentials: 'same-origin', headers: { 'x-csrf-token': csrfToken } });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { code?: string; detail?: string };
    throw new ApiError(problem.code ?? 'error', problem.detail ?? `The server answered ${response.status}.`);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'export';
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Who an invitation link invites (no sign-in needed: the token is the credential). */
export async function peekInvitation(token: string): Promise<{ email: string; name: string; role: Role; expires_at: number }> {
  return (await consoleApi<{ email: string; name: string; role: Role; expires_at: number }>('POST', '/invitations/peek', { token }))!;
}

/** Accepts an invitation with the password its person chose; they sign in afterwards as anyone does. */
export async function acceptInvitation(token: string, password: string): Promise<void> {
  await consoleApi('POST', '/invitations/accept', { token, password });
}
