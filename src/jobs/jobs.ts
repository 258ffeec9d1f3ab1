import type { MikroORM } from '@mikro-orm/postgresql';
import type { Database } from '../db/database.js';
import { JOBS_SCHEMA } from '../db/jobs-schema.js';
import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Services } from '../services.js';
import { rescreenPendingRequests } from '../sessions/aml-monitoring.js';
import { expireDueSessions } from '../sessions/expiry.js';
import { purgeExpiredEvidence } from '../evidence/evidence.service.js';
import { runQueuedReplays } from '../workflows/replay.js';
import { foldSessionCounts } from '../dashboard/stats.service.js';

/** Queue of the periodic session-expiry sweep. */
export const SESSION_EXPIRY_QUEUE = 'session-expiry';
/** How often the sweep runs (cron): every minute, so a session expires at most a minute late (reads expire it at once). */
export const SESSION_EXPIRY_CRON = '* * * * *';
/** Queue of ongoing AML monitoring: re-screens approved sessions after list imports. */
export const AML_RESCREEN_QUEUE = 'aml-rescreen';
/** How often pending re-screening requests are looked for (cron): every minute, and at once when a job is sent. */
export const AML_RESCREEN_CRON = '* * * * *';
/** Queue of the evidence purge: files past their tenant's retention are deleted. */
export const EVIDENCE_PURGE_QUEUE = 'evidence-purge';
/** How often the purge runs (cron): every five minutes, so a file outlives its retention by at most that (reads hide it at once). */
export const EVIDENCE_PURGE_CRON = '*/5 * * * *';
/** Queue of workflow replays too large to run within their request (src/workflows/replay.ts). */
export const WORKFLOW_REPLAY_QUEUE = 'workflow-replay';
/** How often queued replays are looked for (cron): every minute, e.g. those a restart interrupted; new ones start at once. */
export const WORKFLOW_REPLAY_CRON = '* * * * *';
/** Queue of the session counts' fold: the session triggers' changes added into the funnel's and the statuses' counts. */
export const SESSION_COUNTS_FOLD_QUEUE = 'session-counts-fold';
/** How often the fold runs (cron): every minute, so a read sums at most a minute or so of changes besides the counts. */
export const SESSION_COUNTS_FOLD_CRON = '* * * * *';
/** Connections pg-boss may hold, on top of the ORM pool. */
const JOBS_POOL_MAX = 4;

/** A pg-boss database adapter over the ORM's own `pg` pool. */
async function sharedConnectionAdapter(orm: MikroORM): Promise<{ executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }> }> {
  const pool = await orm.em.getConnection().getNativeClient();
  return { executeSql: (text, values) => pool.query(text, values as unknown[] | undefined) };
}

/** The job runner: pg-boss on the same database as everything else. */
export interface Jobs {
  boss: PgBoss;
  /** Stops workers (waiting for running jobs) and closes pg-boss's pool. */
  stop(): Promise<void>;
}

/**
 * Starts pg-boss with the session-expiry, AML re-screening, evidence purge, replay and session counts fold schedules and their workers. On a
 * server it has a pool of its own; on embedded PGlite it shares the ORM's single connection (see
 * src/db/database.ts).
 */
export async function startJobs(database: Database, services: Services, logger: Logger): Promise<Jobs> {
  const { orm } = database;
  const boss = database.embedded
    ? new PgBoss({ db: await sharedConnectionAdapter(orm), schema: JOBS_SCHEMA })
    : new PgBoss({ connectionString: database.url, schema: JOBS_SCHEMA, max: JOBS_POOL_MAX });
  boss.on('error', (error) => logger.error({ err: error }, 'job runner error'));
  await boss.start();
  await boss.createQueue(SESSION_EXPIRY_QUEUE);
  await boss.schedule(SESSION_EXPIRY_QUEUE, SESSION_EXPIRY_CRON);
  await boss.work(SESSION_EXPIRY_QUEUE, async () => {
    const expired = await expireDueSessions(orm.em.fork(), services);
    if (expired > 0) logger.info({ expired }, 'expired sessions past expires_at');
  });
  await boss.createQueue(AML_RESCREEN_QUEUE);
  await boss.schedule(AML_RESCREEN_QUEUE, AML_RESCREEN_CRON);
  await boss.work(AML_RESCREEN_QUEUE, async () => {
    const summary = await rescreenPendingRequests(orm.em.fork(), services.bus, services.secrets);
    if (summary.requests > 0) logger.info({ ...summary }, 'AML lists changed: approved sessions re-screened');
  });
  await boss.createQueue(EVIDENCE_PURGE_QUEUE);
  await boss.schedule(EVIDENCE_PURGE_QUEUE, EVIDENCE_PURGE_CRON);
  await boss.work(EVIDENCE_PURGE_QUEUE, async () => {
    const purged = await purgeExpiredEvidence(orm.em.fork());
    if (purged > 0) logger.info({ purged }, 'evidence past its retention deleted');
  });
  await boss.createQueue(WORKFLOW_REPLAY_QUEUE);
  await boss.schedule(WORKFLOW_REPLAY_QUEUE, WORKFLOW_REPLAY_CRON);
  await boss.work(WORKFLOW_REPLAY_QUEUE, async () => {
    const ran = await runQueuedReplays(orm.em.fork());
    if (ran > 0) logger.info({ ran }, 'queued workflow replays run');
  });
  await boss.createQueue(SESSION_COUNTS_FOLD_QUEUE);
  await boss.schedule(SESSION_COUNTS_FOLD_QUEUE, SESSION_COUNTS_FOLD_CRON);
  await boss.work(SESSION_COUNTS_FOLD_QUEUE, async () => {
    const folded = await foldSessionCounts(orm.em.fork());
    if (folded > 0) logger.debug({ folded }, 'session count changes folded into the counts');
  });
  return {
    boss,
    async stop() {
      await boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
}
