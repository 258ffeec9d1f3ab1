/**
 * The metrics read from the database at scrape time: how far the webhook fan-out trails the
 * outbox, and each destination's backlog. Both queries use the indexes the emitter itself uses
 * (`outbox_event`'s primary key above the cursor, `webhook_delivery_due_index` over pending rows).
 *
 * Raw SQL: (b) gauges computed in the database: counts and ages (`extract(epoch from now() -
 * min(…))`) over an anti-join and a `group by`.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { DatabaseGaugeReading, PoolReading } from './metrics.js';

/** Reads the outbox lag and the pending webhook deliveries per destination. */
export async function readDatabaseGauges(orm: MikroORM): Promise<DatabaseGaugeReading> {
  const em = orm.em.fork();
  const [outbox] = await em.execute<{ pending: string; lag: number | string | null }[]>(
    `select count(*) as pending, extract(epoch from now() - min(e.created_at)) as lag
       from outbox_event e
      where e.seq > coalesce((select seq from webhook_cursor where id = 1), 0)
        and not exists (select 1 from webhook_fanout f where f.event_seq = e.seq)`,
    [],
    'all',
  );
  const backlog = await em.execute<{ destination: string | null; pending: string; oldest: number | string | null }[]>(
    `select destination_id as destination, count(*) as pending, extract(epoch from now() - min(created_at)) as oldest
       from webhook_delivery
      where status = 'pending'
      group by destination_id`,
    [],
    'all',
  );
  return {
    outboxPending: Number(outbox?.pending ?? 0),
    outboxLagSeconds: Math.max(0, Number(outbox?.lag ?? 0)),
    webhookBacklog: backlog.map((row) => ({
      destination: row.destination ?? 'callback',
      pending: Number(row.pending),
      oldestSeconds: Math.max(0, Number(row.oldest ?? 0)),
    })),
  };
}

/** The `pg` pool's figures on a server database; null on the embedded one (a single connection). */
export function poolReader(orm: MikroORM, embedded: boolean): () => PoolReading | null {
  if (embedded) return () => null;
  let pool: { totalCount: number; idleCount: number; waitingCount: number } | null = null;
  // The pool exists once the ORM connected (it has, before the app starts listening).
  void (orm.em.getConnection() as unknown as { getNativeClient(): Promise<typeof pool> })
    .getNativeClient()
    .then((client) => (pool = client))
    .catch(() => undefined);
  return () => (pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null);
}
