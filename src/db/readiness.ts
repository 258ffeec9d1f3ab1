/**
 * Raw SQL: (b) the probe bounds itself with `set local lock_timeout` and `statement_timeout`.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { databaseFaults } from '../shared/errors.js';

/** Longest `/readyz` waits for the database, in milliseconds: a probe must answer well before its own timeout. */
export const READINESS_TIMEOUT_MS = 2000;
/** How long after a write refused for want of disk `/readyz` stays 503, in milliseconds (another refusal extends it). */
export const DISK_FULL_HOLD_MS = 30_000;

/**
 * Whether the database answers a request's kind of query within `timeoutMs`: a read of the
 * `session` table under short statement and lock timeouts, so a table locked by someone else, a
 * pool with no free connection or a server that stopped answering all make the check fail,
 * where `select 1` would still succeed. Throws with the reason when not ready.
 */
export async function checkDatabaseReady(orm: MikroORM, timeoutMs = READINESS_TIMEOUT_MS): Promise<void> {
  // Reads still succeed on a full disk: the writes that failed for want of it decide (audit N7).
  const sinceDiskFull = Date.now() - databaseFaults.diskFullAt;
  if (sinceDiskFull < DISK_FULL_HOLD_MS)
    throw new Error(`the database refused a write for want of disk ${Math.round(sinceDiskFull / 1000)} s ago`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  const probe = orm.em.fork().transactional(async (em) => {
    // Server-side limits too, so the probe does not keep a connection waiting after we gave up on it.
    await em.execute(`set local lock_timeout = ${Math.max(1, Math.floor(timeoutMs / 2))}`);
    await em.execute(`set local statement_timeout = ${timeoutMs}`);
    await em.execute('select 1 from session limit 1');
  });
  // A probe that loses the race still settles later; its rejection must not go unhandled.
  probe.catch(() => undefined);
  try {
    await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
