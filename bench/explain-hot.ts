/**
 * `npx tsx bench/explain-hot.ts`: `EXPLAIN (ANALYZE, BUFFERS)` of the statements every create and
 * decision read makes, on the PostgreSQL server at DATABASE_URL (a database a bench:sessions run
 * filled). The create runs inside a transaction that is rolled back, a group of `--group` (8)
 * sessions as the create batcher writes them; the read takes as many existing sessions.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { INSERT_SESSIONS_SQL } from '../src/sessions/create-batch.js';
import { READ_SESSIONS_SQL } from '../src/sessions/session-record.js';

const { values } = parseArgs({ options: { group: { type: 'string', default: '8' } } });
const GROUP = Number(values.group);
if (!process.env.DATABASE_URL) throw new Error('Set DATABASE_URL to a PostgreSQL database a bench:sessions run filled');
const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();

/** Prints one plan, run `times` times first so the plan cache and buffers are warm. */
async function explain(title: string, text: string, parameters: unknown[]): Promise<void> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) ${text}`, parameters);
  console.log(`\n## ${title}\n`);
  for (const row of rows) console.log(row['QUERY PLAN']);
}

const { rows: sessions } = await client.query<{ id: string; tenant_id: string; environment: string; created_by_key_id: string }>(
  'select id, tenant_id, environment, created_by_key_id from session order by created_at desc limit $1',
  [GROUP],
);
if (sessions.length === 0) throw new Error('No sessions: run bench:sessions against this database first');
const [first] = sessions;
const now = new Date().toISOString();
const creates = Array.from({ length: GROUP }, (_, ord) => ({
  ord,
  id: randomUUID(),
  tenant_id: first!.tenant_id,
  environment: first!.environment,
  workflow_id: 'standard_kyc',
  vendor_data: `explain-${randomUUID()}`,
  callback: null,
  redirect_url: null,
  language: null,
  metadata: null,
  contact_details: null,
  expected_details: null,
  key_id: first!.created_by_key_id,
  operator_id: null,
  actor_name: null,
  ttl_seconds: 3600,
  nodes: ['document', 'face', 'aml'].map((type) => ({ type, required: true, provider: 'sandbox' })),
  audit_id: randomUUID(),
  changed_at: now,
  event_id: randomUUID(),
  payload: { status: 'pending' },
  snapshot: null,
}));
await client.query('begin');
for (let run = 0; run < 3; run += 1) await client.query('savepoint warm');
await explain(`create: ${GROUP} sessions in one statement (rolled back)`, INSERT_SESSIONS_SQL, [JSON.stringify(creates)]);
await client.query('rollback');
await explain(`decision read: ${sessions.length} sessions in one statement`, READ_SESSIONS_SQL, [sessions.map((session) => session.id)]);
await client.end();
