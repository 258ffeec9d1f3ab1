/**
 * Expiry: sessions whose `expires_at` passed while they still took input become `expired`, on read and by the periodic job.
 *
 * Raw SQL: (b) due sessions are claimed with `for update skip locked`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionSchema } from '../../entities/session.entity.js';
import { INPUT_STATUSES_SQL } from '../domain/session-state.js';
import { transactionWithEvents, type EventBatch } from '../events/outbox.js';
import type { Services } from '../services.js';
import { transition } from './status-audit.js';

/** Expires, in the transaction, the pending or in-progress sessions matching `where` whose time is up. */
export async function expireDue(
  tx: EntityManager,
  events: EventBatch,
  where: { sql: string; params: unknown[] },
  limit = 1000,
): Promise<number> {
  const rows = await tx.execute<{ id: string }[]>(
    `select id from session
      where ${INPUT_STATUSES_SQL} and expires_at <= now() and ${where.sql}
      order by expires_at limit ${limit} for update skip locked`,
    where.params,
  );
  if (rows.length === 0) return 0;
  const sessions = await tx.find(SessionSchema, { id: { $in: rows.map((row) => row.id) } });
  for (const session of sessions) transition(tx, events, session, 'expired', 'expiry', null, 'expires_at passed');
  await tx.flush();
  return sessions.length;
}

/** Expires every pending or in-progress session past `expires_at`, in batches; returns how many. */
export async function expireDueSessions(em: EntityManager, services: Services, batchSize = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await transactionWithEvents(em.fork(), services.bus, (tx, events) =>
      expireDue(tx, events, { sql: 'true', params: [] }, batchSize),
    );
    total += expired;
    if (expired < batchSize) return total;
  }
}
