/**
 * `npm run bench:sessions`: REST create-session and get-decision throughput and latency with 50
 * connections, beside a baseline in the same run: a bare fastify route doing one
 * `INSERT … RETURNING` with `pg` on the same database. The servers run in a child process
 * (bench/support/sessions-server.ts), the load generator here. Embedded PGlite by default (data
 * in a temporary directory on disk, as `npm start` keeps it; BENCH_PGLITE_DIR=memory for memory);
 * the server at DATABASE_URL when set. Options: --duration <seconds per run> (10), --connections
 * (50), --only <text of a run's name>, --personal (each session carries typed personal data,
 * sealed at rest, and a run reads whole sessions back: what sealing costs, docs/performance.md). BENCH_CPU_PROF=<dir> writes the server's CPU profile there;
 * BENCH_COUNT_STATEMENTS=1 prints the statements per request of each run; BENCH_RATE_LIMITS=1 turns the
 * rate limits on (quotas too high to refuse), to measure what counting costs.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { databaseCpuMicros as measuredDatabaseCpu } from './support/measure.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    personal: { type: 'boolean', default: false },
  },
});
const DURATION_SECONDS = Number(values.duration);
const CONNECTIONS = Number(values.connections);
/** Sessions created up front for the decision run to read. */
const DECISION_POOL_SIZE = 500;
/** Throughput share of the baseline the service should reach. */
const TARGET_RATIO = 0.5;
/** p99 the service should stay under, in milliseconds. */
const TARGET_P99_MS = 50;

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Server process CPU time per request, in microseconds. */
  cpuMicrosPerRequest: number;
  /** CPU time of the local PostgreSQL processes per request, in microseconds; null when not measurable. */
  databaseMicrosPerRequest: number | null;
}

/** Runs autocannon and keeps the figures we report. */
async function measure(name: string, options: autocannon.Options): Promise<Figures> {
  const cpuBefore = await serverCpuMicros();
  const databaseBefore = await databaseCpuMicros();
  const statementsBefore = await serverStatements();
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_SECONDS, ...options });
  const cpuMicros = (await serverCpuMicros()) - cpuBefore;
  const databaseAfter = await databaseCpuMicros();
  const statementsAfter = await serverStatements();
  const sent = Object.entries(statementsAfter)
    .map(([text, count]) => [text, (count - (statementsBefore[text] ?? 0)) / Math.max(1, result.requests.total)] as const)
    .filter(([, perRequest]) => perRequest >= 0.001)
    .sort((a, b) => b[1] - a[1]);
  if (sent.length > 0) {
    const total = sent.reduce((sum, [, perRequest]) => sum + perRequest, 0);
    console.log(`\n${name}: ${total.toFixed(3)} statements per request (BENCH_COUNT_STATEMENTS)`);
    for (const [text, perRequest] of sent) console.log(`  ${perRequest.toFixed(3)}  ${text}`);
  }
  return {
    cpuMicrosPerRequest: cpuMicros / Math.max(1, result.requests.total),
    databaseMicrosPerRequest:
      databaseBefore === null || databaseAfter === null ? null : (databaseAfter - databaseBefore) / Math.max(1, result.requests.total),
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

const child = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []),
    '--import',
    'tsx',
    new URL('./support/sessions-server.ts', import.meta.url).pathname,
  ],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  },
);
const firstLine = await new Promise<string>((resolve, reject) => {
  createInterface({ input: child.stdout! }).once('line', resolve);
  child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
});
const server = JSON.parse(firstLine) as { url: string; baselineUrl: string; cpuUrl: string; key: string; embedded: boolean };
const headers = { 'content-type': 'application/json', 'x-api-key': server.key };

/** Statements the server process has sent so far, by their first words (empty unless BENCH_COUNT_STATEMENTS is set). */
async function serverStatements(): Promise<Record<string, number>> {
  const response = await fetch(server.cpuUrl.replace(/\/cpu$/, '/statements'));
  return (await response.json()) as Record<string, number>;
}

/** CPU time the server process has used so far, in microseconds. */
async function serverCpuMicros(): Promise<number> {
  const response = await fetch(server.cpuUrl);
  return ((await response.json()) as { micros: number }).micros;
}

/** CPU time of the local PostgreSQL processes so far (bench/support/measure.ts); null on PGlite. */
const databaseCpuMicros = () => measuredDatabaseCpu(server.embedded);

let counter = 0;
/** Typed identity and contact, with `--personal`: the create seals them, the read opens them. */
const PERSONAL = values.personal
  ? {
      expected_details: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1815-12-10', country: 'GB' },
      contact_details: { email: 'ada@example.com', phone: '+447400123456' },
    }
  : {};
const uniqueBody = () => JSON.stringify({ workflow_id: 'standard_kyc', vendor_data: `bench-${process.pid}-${counter++}`, ...PERSONAL });

const sessionIds: string[] = [];
for (let index = 0; index < DECISION_POOL_SIZE; index += 1) {
  const response = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers, body: uniqueBody() });
  if (response.status !== 201) throw new Error(`creating the decision pool: ${response.status} ${await response.text()}`);
  sessionIds.push(((await response.json()) as { session_id: string }).session_id);
}
let next = 0;

// Warm-up so JIT and pools are hot before measuring.
await autocannon({
  url: `${server.url}/v1/sessions`,
  connections: 10,
  duration: 2,
  requests: [{ method: 'POST', headers, setupRequest: (request) => ({ ...request, body: uniqueBody() }) }],
});

const runs: [string, autocannon.Options][] = [
  [
    'baseline: INSERT … RETURNING (bare fastify + pg)',
    {
      url: server.baselineUrl,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: uniqueBody() }),
        },
      ],
    },
  ],
  [
    'POST /v1/sessions (create)',
    {
      url: `${server.url}/v1/sessions`,
      requests: [{ method: 'POST', headers, setupRequest: (request) => ({ ...request, body: uniqueBody() }) }],
    },
  ],
  [
    'GET /v1/sessions/{id}/decision',
    {
      url: server.url,
      requests: [
        {
          method: 'GET',
          headers,
          setupRequest: (request) => ({ ...request, path: `/v1/sessions/${sessionIds[next++ % sessionIds.length]}/decision` }),
        },
      ],
    },
  ],
];
if (values.personal)
  runs.push([
    'GET /v1/sessions/{id} (typed personal data)',
    {
      url: server.url,
      requests: [
        {
          method: 'GET',
          headers,
          setupRequest: (request) => ({ ...request, path: `/v1/sessions/${sessionIds[next++ % sessionIds.length]}` }),
        },
      ],
    },
  ]);
// `--only <text>` measures just the runs whose name contains it (for profiling one path).
const results: Figures[] = [];
for (const [name, options] of runs) if (!values.only || name.includes(values.only)) results.push(await measure(name, options));

const [base] = results;
const database = server.embedded
  ? `embedded PGlite (${process.env.BENCH_PGLITE_DIR === 'memory' ? 'in memory' : 'data on disk'})`
  : 'PostgreSQL server (DATABASE_URL)';
console.log(
  `\nbench:sessions — ${database}${process.env.BENCH_RATE_LIMITS ? ', rate limits on' : ''}, ${CONNECTIONS} connections, ${DURATION_SECONDS} s per run, Node ${process.version}\n`,
);
console.log('| run | req/s | p50 ms | p99 ms | vs baseline | server CPU µs/req | database CPU µs/req | non-2xx | errors |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const figures of results) {
  const ratio = figures.requestsPerSecond / base.requestsPerSecond;
  console.log(
    `| ${figures.name} | ${figures.requestsPerSecond.toFixed(0)} | ${figures.p50} | ${figures.p99} | ${(ratio * 100).toFixed(0)}% | ${figures.cpuMicrosPerRequest.toFixed(0)} | ${figures.databaseMicrosPerRequest?.toFixed(0) ?? 'n/a'} | ${figures.non2xx} | ${figures.errors} |`,
  );
}
const targetsMet = results
  .slice(1)
  .every((figures) => figures.requestsPerSecond >= base.requestsPerSecond * TARGET_RATIO && figures.p99 < TARGET_P99_MS);
console.log(`\nTargets (≥ ${TARGET_RATIO * 100}% of baseline throughput, p99 < ${TARGET_P99_MS} ms): ${targetsMet ? 'met' : 'NOT met'}`);

child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
