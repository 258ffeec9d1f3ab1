import { randomUUID } from 'node:crypto';
import { Client, createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import pino, { type Logger } from 'pino';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/shared/config.js';
import { createTenant, issueApiKey } from '../../src/tenants/tenant.service.js';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { pgliteTemplate } from './database-template.js';

/** A tenant made for one test, with a key in each environment. */
export interface TestTenant {
  id: string;
  sandboxKey: string;
  liveKey: string;
  sandboxKeyId: string;
}

/** A started service for one test file, with helpers to call it over real HTTP. */
export interface TestApp {
  app: RunningApp;
  url: string;
  /** Creates a tenant with a sandbox and a live key. */
  tenant(name?: string): Promise<TestTenant>;
  /** Issues another key for a tenant. */
  issueKey(tenantId: string, environment: ApiKeyEnvironment): Promise<{ id: string; key: string; prefix: string }>;
  /** Calls the REST facade; `key` null sends no key header. */
  rest(
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<RestResponse>;
  /** Posts a GraphQL operation over HTTP. */
  graphql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    key?: string | null,
  ): Promise<{ status: number; body: { data?: T; errors?: GraphQLErrorBody[] } }>;
  /** Opens a graphql-ws client. */
  ws(connectionParams: Record<string, unknown> | undefined): Client;
  close(): Promise<void>;
}

/** One GraphQL error as the server sends it. */
export interface GraphQLErrorBody {
  message: string;
  path?: string[];
  extensions?: { code?: string; fieldErrors?: { field: string; code: string; message: string }[] };
}

/** A REST response with its parsed body. */
export interface RestResponse {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * Starts the service on port 0 against an in-memory PGlite started from the run's migrated
 * template, or DATABASE_URL when set (this file's own copy of the template, see
 * test/support/database-per-file.ts).
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: {
    onQuery?: (sql: string, formatted?: string) => void;
    /** Captures the server's log (tests of what is logged). */ logger?: Logger;
  } = {},
): Promise<TestApp> {
  const config = loadConfig({
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    PGLITE_DATA_DIR: 'memory',
    SEED_DEMO_TENANT: 'false',
    // Fixed so every app and child process a test starts on one server database reads what the others wrote.
    MASTER_KEY: 'test-master-key-not-for-production-0123456789',
    LOG_LEVEL: 'silent',
    // The server database is a copy of the template the global setup migrated. An embedded one
    // starts from the same migrated dump, and the start only checks that nothing is pending.
    MIGRATE_ON_START: process.env.DATABASE_URL ? 'false' : 'true',
    // Webhook tests opt in: when several apps share a server database, another app's emitter would otherwise take their deliveries.
    EMITTER_IN_PROCESS: 'false',
    // Rate-limit tests opt in: every app's requests come from 127.0.0.1.
    RATE_LIMIT_ENABLED: 'false',
    ...env,
  });
  // TEST_LOG_LEVEL=error shows the server's own errors while debugging a test.
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  // On-disk data directories (tests of the embedded files themselves) ignore the template.
  const app = await startApp(config, { logger, onQuery: options.onQuery, pgliteTemplate: await pgliteTemplate() });
  const url = app.url;
  const clients: Client[] = [];

  const testApp: TestApp = {
    app,
    url,
    async tenant(name = `tenant-${randomUUID().slice(0, 8)}`) {
      const em = app.orm.em.fork();
      const tenant = await createTenant(em, name);
      const sandbox = await issueApiKey(em, tenant.id, 'sandbox');
      const live = await issueApiKey(em, tenant.id, 'live');
      return { id: tenant.id, sandboxKey: sandbox.key, liveKey: live.key, sandboxKeyId: sandbox.id };
    },
    async issueKey(tenantId, environment) {
      const issued = await issueApiKey(app.orm.em.fork(), tenantId, environment);
      return { id: issued.id, key: issued.key, prefix: issued.prefix };
    },
    async rest(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (options.key) headers['x-api-key'] = options.key;
      let body: string | undefined;
      if (options.rawBody !== undefined) body = options.rawBody;
      else if (options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      const response = await fetch(`${url}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = undefined;
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async graphql(query, variables, key) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (key) headers['x-api-key'] = key;
      const response = await fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      return { status: response.status, body: (await response.json()) as any };
    },
    ws(connectionParams) {
      const client = createClient({
        url: url.replace('http', 'ws') + '/graphql',
        webSocketImpl: WebSocket,
        connectionParams,
        retryAttempts: 0,
        lazy: false,
        onNonLazyError: () => undefined,
      });
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.dispose()));
      await app.close();
    },
  };
  return testApp;
}
