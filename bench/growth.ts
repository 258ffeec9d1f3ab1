/**
 * `npm run bench:growth`: whether the hot paths stay flat as a tenant grows (issue 29.6). One
 * tenant per size is seeded (default 10,000 and 1,000,000 sessions on a server database, 10,000
 * and 100,000 on PGlite; `--sizes 10000,1000000`), with mixed statuses and their status history
 * (bench/support/seed-sessions.ts), and the same requests are timed through the public API:
 * create, decision read, the first sessions page, the `vendor_data` filter, the review queue's
 * page (with and without its `totalCount`), the search and the console's funnel. The tenants take
 * turns request by request, so a change in a shared machine's load hits every size alike; the
 * baseline is the smallest tenant in the same rounds, and, first column, the smallest tenant
 * alone in the database before the others were seeded. Target: each path's p50 at the largest
 * size within 1.2× of the smallest's.
 *
 * Each tenant also holds list entries and face templates (issue 29.6: "100k list entries, 1M face
 * templates"): `--list-entries` (default a tenth of each size) in three custom lists, a third of
 * them names, documents and faces (bench/support/seed-list-entries.ts), and `--face-templates`
 * (default one per session) live sessions with a selfie template each
 * (bench/support/seed-face-templates.ts). Timed with them: the lists with their counts, a list's
 * first page of entries (REST and the console's connection), the list gate as a decision runs it
 * (`findListHits`: a name looked up by fingerprint, a face compared with the face entries) and the
 * duplicate-face search the biometric step runs (`findDuplicateFaces` in a transaction, the
 * in-memory index). Neither of the last two has an API call of its own: through the API they run
 * only inside a live session's face step (the face engine's seconds), so the service call the
 * decision makes is timed, in a transaction of its own. Each tenant's first duplicate search
 * loads its templates into memory; it is run, and timed apart, right after seeding.
 *
 * With DATABASE_URL the bench creates and drops a scratch database on that server; without it,
 * in-memory PGlite. `--runs N` (default 100) timed requests per path and size, after 10 untimed.
 * `--list-entries 1000,100000` and `--face-templates 10000,1000000` give the counts per size;
 * `--keep-database` leaves the server's scratch database for EXPLAIN ANALYZE (drop it after).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { SessionSchema, type Session } from '../entities/session.entity.js';
import { startApp } from '../src/app.js';
import { foldSessionCounts } from '../src/dashboard/stats.service.js';
import { DUPLICATE_FACE_SIMILARITY } from '../src/duplicates/duplicates.js';
import { findDuplicateFaces } from '../src/duplicates/face-search.js';
import { projectTemplate, templateBytes } from '../src/engines/face/template.js';
import { faceTemplateKey } from '../src/lists/face-templates.js';
import { findListHits } from '../src/lists/gate.js';
import { createTenant, issueApiKey } from '../src/tenants/tenant.service.js';
import { benchAppConfig } from './support/app-config.js';
import { createBenchDatabase } from './support/scratch-database.js';
import { seedFaceTemplates, type PlantedTemplate } from './support/seed-face-templates.js';
import { seededEntryFingerprint, seedListEntries, type SeededLists } from './support/seed-list-entries.js';
import { prng, seededName, seededVendorData, seedSessions } from './support/seed-sessions.js';
import { nearby } from './support/templates.js';

const SERVER = process.env.DATABASE_URL;
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: SERVER ? '10000,1000000' : '10000,100000' },
    runs: { type: 'string', default: '100' },
    'list-entries': { type: 'string' },
    'face-templates': { type: 'string' },
    'keep-database': { type: 'boolean', default: false },
  },
});
const SIZES = values.sizes.split(',').map(Number);
if (SIZES.some((size, index) => !Number.isInteger(size) || size < 1 || (index > 0 && size <= SIZES[index - 1]!)))
  throw new Error('--sizes takes increasing whole numbers, e.g. 10000,1000000');

/** A count per size from `option` (comma-separated, one per size), or `fallback` of each size. */
function perSize(option: string | undefined, name: string, fallback: (size: number) => number): number[] {
  const counts = option === undefined ? SIZES.map(fallback) : option.split(',').map(Number);
  if (counts.length !== SIZES.length || counts.some((count) => !Number.isInteger(count) || count < 3))
    throw new Error(`--${name} takes one whole number of at least 3 per size, e.g. ${SIZES.map(fallback).join(',')}`);
  return counts;
}
/** List entries per tenant (a third each in a name, a document and a face list). */
const LIST_ENTRIES = perSize(values['list-entries'], 'list-entries', (size) => Math.max(3, Math.round(size / 10)));
/** Live sessions with a selfie template per tenant (the duplicate-face search's rows). */
const FACE_TEMPLATES = perSize(values['face-templates'], 'face-templates', (size) => size);
const RUNS = Number(values.runs);
const WARMUP = 10;
/** The issue's bound on growth: a path at the largest size within this factor of its first-size p50. */
const TARGET_RATIO = 1.2;

/** A figure to two decimals. */
const round = (value: number) => Number(value.toFixed(2));

/** p50 and p95 of durations in milliseconds. */
function percentiles(durations: number[]): { p50: number; p95: number } {
  const sorted = [...durations].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p95: at(0.95) };
}

const scratch = SERVER ? await createBenchDatabase(SERVER, 'bench_growth') : undefined;

const app = await startApp(
  benchAppConfig({
    ...(scratch ? { DATABASE_URL: scratch.url, PGLITE_DATA_DIR: undefined } : {}),
    JOBS_ENABLED: 'false',
    EMITTER_IN_PROCESS: 'false',
  }),
);
try {
  const em = app.orm.em.fork();

  /** One tenant of the run, seeded to `size` sessions; `created` are the sessions its creates made (the decision reads read them). */
  interface GrowthTenant {
    size: number;
    key: string;
    created: string[];
    tenantId: string;
    lists: SeededLists;
    /** A seeded sandbox session given a listed name and a face near a listed one: the list gate's subject. */
    gateSession: Session;
    keyVersion: number;
    /** Probes near planted templates, each with the session it must find. */
    duplicateProbes: { sessionId: string; probe: Int8Array }[];
  }

  /** One API request as `tenant`; throws unless it answered `expected`. */
  const call = async (tenant: GrowthTenant, method: string, path: string, body: unknown, expected: number): Promise<any> => {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.key },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as { errors?: unknown };
    if (response.status !== expected || answer.errors) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const graphql = (tenant: GrowthTenant, query: string) => call(tenant, 'POST', '/graphql', { query }, 200);
  /** The duplicate-face search as the biometric step runs it: in a transaction, on the in-memory index. */
  const duplicateSearch = (tenant: GrowthTenant, probe: Int8Array) =>
    app.orm.em.fork().transactional((tx) =>
      findDuplicateFaces(tx, {
        scope: { tenantId: tenant.tenantId, environment: 'live' },
        sessionId: randomUUID(),
        vendorData: `probe-${randomUUID()}`,
        keyVersion: tenant.keyVersion,
        probe,
        minSimilarity: DUPLICATE_FACE_SIMILARITY,
      }),
    );
  /** A seeded session number of `tenant`, spread over all of them by `run`. */
  const seededOf = (tenant: GrowthTenant, run: number) => 1 + ((run * 7919) % tenant.size);

  const paths: [string, (tenant: GrowthTenant, run: number) => Promise<unknown>][] = [
    [
      'POST /v1/sessions',
      async (tenant, run) => {
        const vendorData = `growth-${tenant.size}-${tenant.created.length}-${run}`;
        const session = await call(tenant, 'POST', '/v1/sessions', { workflow_id: 'standard_kyc', vendor_data: vendorData }, 201);
        tenant.created.push(session.session_id);
      },
    ],
    [
      'GET /v1/sessions/{id}/decision',
      (tenant, run) => call(tenant, 'GET', `/v1/sessions/${tenant.created[run % tenant.created.length]}/decision`, undefined, 200),
    ],
    ['GET /v1/sessions (first page)', (tenant) => call(tenant, 'GET', '/v1/sessions', undefined, 200)],
    [
      'GET /v1/sessions?vendor_data=',
      (tenant, run) => call(tenant, 'GET', `/v1/sessions?vendor_data=${seededVendorData(seededOf(tenant, run))}`, undefined, 200),
    ],
    ['review queue (first page)', (tenant) => graphql(tenant, '{ reviewQueueSessions(first: 20) { edges { node { id } } } }')],
    // Counting every session in review grows with them (one in ten here); only clients that ask pay it.
    [
      'review queue (first page + totalCount)',
      (tenant) => graphql(tenant, '{ reviewQueueSessions(first: 20) { totalCount edges { node { id } } } }'),
    ],
    [
      'GET /v1/sessions/search?q= (a name)',
      (tenant, run) =>
        call(tenant, 'GET', `/v1/sessions/search?q=${encodeURIComponent(seededName(seededOf(tenant, run)))}`, undefined, 200),
    ],
    ['funnel chart (90 days)', (tenant) => graphql(tenant, '{ sessionFunnel(days: 90) { created started submitted decided } }')],
    // Every list with its entry count: counts grow with the entries (the REST answer carries them).
    ['GET /v1/lists (with counts)', (tenant) => call(tenant, 'GET', '/v1/lists', undefined, 200)],
    [
      'GET /v1/lists/{id}/entries (first page)',
      (tenant) => call(tenant, 'GET', `/v1/lists/${tenant.lists.listIds.name}/entries`, undefined, 200),
    ],
    [
      'list entries connection (first page)',
      (tenant) => graphql(tenant, `{ listEntriesConnection(listId: "${tenant.lists.listIds.name}", first: 20) { edges { node { id } } } }`),
    ],
    [
      'list gate (findListHits: name + face)',
      async (tenant) => {
        const hits = await app.orm.em.fork().transactional((tx) => findListHits(tx, tenant.gateSession, {}));
        if (hits.length !== 2) throw new Error(`the list gate found ${hits.length} hits, not the name and the face`);
      },
    ],
    [
      'duplicate-face search (findDuplicateFaces)',
      async (tenant, run) => {
        const { sessionId, probe } = tenant.duplicateProbes[run % tenant.duplicateProbes.length]!;
        const matches = await duplicateSearch(tenant, probe);
        if (!matches.some((match) => match.sessionId === sessionId)) throw new Error(`the duplicate search missed ${sessionId}`);
      },
    ],
  ];

  /** Times every path for `tenants`, one request of each tenant in turn, so a change in the machine's load hits them alike. */
  const measure = async (tenants: GrowthTenant[]): Promise<Map<string, { p50: number; p95: number }[]>> => {
    const figures = new Map<string, { p50: number; p95: number }[]>();
    for (const [name, run] of paths) {
      for (let i = 0; i < WARMUP; i += 1) for (const tenant of tenants) await run(tenant, i);
      const durations = tenants.map((): number[] => []);
      for (let i = 0; i < RUNS; i += 1) {
        for (const [index, tenant] of tenants.entries()) {
          const started = performance.now();
          await run(tenant, WARMUP + i);
          durations[index]!.push(performance.now() - started);
        }
      }
      figures.set(name, durations.map(percentiles));
    }
    return figures;
  };

  const tenants: GrowthTenant[] = [];
  let alone: Map<string, { p50: number; p95: number }[]> | undefined;
  for (const [index, size] of SIZES.entries()) {
    const tenant = await createTenant(em, `bench-growth-${size}`);
    const key = (await issueApiKey(em, tenant.id, 'sandbox')).key;
    const tag = String.fromCharCode(97 + index);
    const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(0);
    let seedStarted = performance.now();
    await seedSessions(em, tenant.id, 1, size, { lifecycle: true, tag });
    await em.execute('analyze session', [], 'run');
    await em.execute('analyze session_search', [], 'run');
    await em.execute('analyze session_status_change', [], 'run');
    process.stderr.write(`seeded a tenant of ${size.toLocaleString('en')} sessions in ${seconds(seedStarted)} s\n`);

    const templateKey = await faceTemplateKey(em, app.services, tenant.id);
    seedStarted = performance.now();
    const lists = await seedListEntries(em, tenant.id, LIST_ENTRIES[index]!, templateKey.version, tag);
    await em.execute('analyze list_entry', [], 'run');
    process.stderr.write(`seeded ${(lists.perList * 3).toLocaleString('en')} list entries in ${seconds(seedStarted)} s\n`);
    seedStarted = performance.now();
    const planted = await seedFaceTemplates(em, tenant.id, FACE_TEMPLATES[index]!, templateKey.version, tag);
    await em.execute('analyze session', [], 'run');
    await em.execute('analyze session_list_subject', [], 'run');
    process.stderr.write(`seeded ${FACE_TEMPLATES[index]!.toLocaleString('en')} face templates in ${seconds(seedStarted)} s\n`);
    // The job runner is off here: fold the seeding's session count changes as its minutely job would.
    seedStarted = performance.now();
    const folded = await foldSessionCounts(em);
    await em.execute('analyze session_funnel_count', [], 'run');
    process.stderr.write(`folded ${folded.toLocaleString('en')} session count changes in ${seconds(seedStarted)} s\n`);

    // The gate's subject: seeded session 1 with the name of entry 1 and a face near the first face entry.
    const random = prng(13 + index);
    const gateSessionId = (await em.execute<{ id: string }[]>(`select md5(? || 1)::uuid::text as id`, [tag], 'all'))[0]!.id;
    await em.execute(
      `insert into session_list_subject (session_id, tenant_id, node_type, kind, fingerprint, template, key_version)
       values (?, ?, 'aml_screening', 'name', ?, null, null), (?, ?, 'biometric_kyc', 'face', null, ?, ?)`,
      [
        gateSessionId,
        tenant.id,
        seededEntryFingerprint('name', 1),
        gateSessionId,
        tenant.id,
        templateBytes(projectTemplate(nearby(lists.faceSources[0]!, random, 0.3))),
        templateKey.version,
      ],
      'run',
    );
    const growthTenant: GrowthTenant = {
      size,
      key,
      created: [],
      tenantId: tenant.id,
      lists,
      gateSession: await em.fork().findOneOrFail(SessionSchema, { id: gateSessionId }),
      keyVersion: templateKey.version,
      duplicateProbes: planted.map((template: PlantedTemplate) => ({
        sessionId: template.sessionId,
        probe: projectTemplate(nearby(template.source, random, 0.3)),
      })),
    };
    // A process's first duplicate search of a scope loads its templates into memory: done here, timed apart.
    seedStarted = performance.now();
    await duplicateSearch(growthTenant, growthTenant.duplicateProbes[0]!.probe);
    process.stderr.write(
      `first duplicate search (loads ${FACE_TEMPLATES[index]!.toLocaleString('en')} templates) ${seconds(seedStarted)} s\n`,
    );
    tenants.push(growthTenant);
    // The smallest tenant alone in its database: the figure "at 10k" before anything else is there.
    if (index === 0) alone = await measure(tenants);
  }
  const together = await measure(tenants);

  const last = SIZES.length - 1;
  const rows = [...together].map(([name, bySize]) => {
    const ratio = bySize[last]!.p50 / bySize[0]!.p50;
    const columns: Record<string, string | number> = {
      path: name,
      [`p50 ms, ${SIZES[0]!.toLocaleString('en')} alone`]: round(alone!.get(name)![0]!.p50),
    };
    SIZES.forEach((size, index) => {
      columns[`p50 ms @${size.toLocaleString('en')}`] = round(bySize[index]!.p50);
      columns[`p95 ms @${size.toLocaleString('en')}`] = round(bySize[index]!.p95);
    });
    columns['p50 ratio'] = round(ratio);
    columns[`≤ ${TARGET_RATIO}×`] = ratio <= TARGET_RATIO ? 'met' : 'MISSED';
    return columns;
  });
  console.log(
    `\nGrowth: tenants of ${SIZES.map((size) => size.toLocaleString('en')).join(' and ')} sessions ` +
      `(${LIST_ENTRIES.map((count) => count.toLocaleString('en')).join(' and ')} list entries, ` +
      `${FACE_TEMPLATES.map((count) => count.toLocaleString('en')).join(' and ')} face templates) in one ${SERVER ? 'PostgreSQL' : 'PGlite (in memory)'} database, ` +
      `${RUNS} requests per path and tenant, the tenants in turn; baseline: the ${SIZES[0]!.toLocaleString('en')} tenant in the same rounds ` +
      `(and alone in the database before the others were seeded, first column).`,
  );
  console.table(rows);
} finally {
  await app.close();
  if (values['keep-database'] && scratch) process.stderr.write(`kept ${scratch.url}: drop it when done\n`);
  else await scratch?.drop();
}
