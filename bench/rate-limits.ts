/**
 * Rate limits under the security audit's load (issue 13.5, audit M4): `npm run bench:rate-limits`.
 *
 * For each of three servers — limits off (the baseline), limits on with the default settings — the
 * audit's traffic shapes run for `--seconds` each from 20 connections: `GET /v1/workflows` with one
 * key, GraphQL `{ lists { id } }` with one key, and random wrong keys. Printed per shape: requests
 * per second, p50 / p99 latency, and how many answers were 2xx, 401 and 429. The first shape's
 * latency beside the baseline's is what the counters cost a request (one upsert per limit on a
 * PostgreSQL server, memory on the embedded database). Embedded PGlite unless DATABASE_URL is set.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pino from 'pino';
import { startApp } from '../src/app.js';
import { createTenant, issueApiKey } from '../src/tenants/tenant.service.js';
import { benchAppConfig } from './support/app-config.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '20' } } });
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);

/** One traffic shape's figures. */
interface Figures {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  unauthenticated: number;
  limited: number;
}

/** Runs one shape against a server and counts answers by status. */
async function shape(options: autocannon.Options): Promise<Figures> {
  const counts = new Map<number, number>();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options }, (error, finished) =>
      error ? reject(error) : resolve(finished),
    );
    instance.on('response', (_client, statusCode) => counts.set(statusCode, (counts.get(statusCode) ?? 0) + 1));
  });
  const count = (predicate: (status: number) => boolean) =>
    [...counts].filter(([status]) => predicate(status)).reduce((sum, [, n]) => sum + n, 0);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: count((status) => status >= 200 && status < 300),
    unauthenticated: count((status) => status === 401),
    limited: count((status) => status === 429),
  };
}

/** Starts a server with the given limit settings and runs the three shapes. */
async function run(env: Record<string, string>): Promise<Record<string, Figures>> {
  const config = benchAppConfig(env);
  const app = await startApp(config, { logger: pino({ level: 'silent' }) });
  try {
    const em = app.orm.em.fork();
    const tenant = await createTenant(em, `bench ${randomUUID().slice(0, 8)}`);
    const key = (await issueApiKey(em, tenant.id, 'sandbox')).key;
    return {
      'REST GET /v1/workflows, one key': await shape({ url: `${app.url}/v1/workflows`, headers: { 'x-api-key': key } }),
      'GraphQL { lists { id } }, one key': await shape({
        url: `${app.url}/graphql`,
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ lists { id } }' }),
      }),
      'random wrong keys': await shape({
        url: `${app.url}/v1/workflows`,
        setupClient: (client) => client.setHeaders({ 'x-api-key': `sk_sandbox_${randomUUID()}` }),
      }),
    };
  } finally {
    await app.close();
  }
}

const database = process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite';
console.log(`rate limits on ${database}: ${CONNECTIONS} connections, ${SECONDS} s per shape`);
for (const [label, env] of [
  ['baseline: limits off', { RATE_LIMIT_ENABLED: 'false' }],
  ['limits on (defaults: 100/s per key, 200/s per address, 20 failed authentications per minute)', { RATE_LIMIT_ENABLED: 'true' }],
] as const) {
  console.log(label);
  for (const [name, figures] of Object.entries(await run(env))) {
    console.log(
      `  ${name.padEnd(36)} ${figures.rps.toFixed(0).padStart(6)} req/s  p50 ${figures.p50} ms  p99 ${figures.p99} ms  2xx ${figures.ok}  401 ${figures.unauthenticated}  429 ${figures.limited}`,
    );
  }
}
process.exit(0);
