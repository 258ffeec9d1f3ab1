/**
 * Webhook fan-out (Svix's "dispatch" of a message to its endpoints): turns committed outbox events
 * into delivery rows, one per event and target, idempotently, with a marker per event in the same
 * transaction; and the watermark that keeps the fan-out query off history.
 *
 * Raw SQL: (a) `npm run bench:events` (b) (4,029 deliveries/s on PostgreSQL 15): the fan-out reads
 * past a cursor and writes deliveries in bulk through `jsonb_to_recordset`, moving the cursor with
 * a subquery.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { WebhookVersion } from '../../entities/webhook.entity.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { decisionJson, readDecisions, type DecisionJson } from '../sessions/decision.js';
import { buildWebhookBody, type EventForDelivery } from './payloads.js';
import { storedEvent, type EventPayload, type EventType } from '../domain/events.js';
import { nextRetryDelayMs } from './schedule.js';
import type { ClaimedDelivery } from './dispatch.js';

/** Outbox events turned into deliveries per fan-out transaction, at most. */
export const FAN_OUT_BATCH_SIZE = 500;
/**
 * Deliveries one fan-out transaction inserts, at most (but for its first event's): a 5,000-row
 * insert kept the first of its deliveries from being sent for ~1 s under load.
 */
export const FAN_OUT_MAX_DELIVERIES = 1000;
/** How often the fan-out watermark advances and old markers are pruned, in milliseconds. */
export const WATERMARK_INTERVAL_MS = 30_000;
/**
 * Age after which an outbox event may fall below the watermark, in seconds. Sequence numbers
 * commit out of order, so a low `seq` can still appear while its transaction runs; we assume no
 * transaction that records events stays open this long.
 */
const WATERMARK_GRACE_SECONDS = 300;
/** Outbox events past its remembered sequence a fan-out poll checks for being done, at most: more than a batch, so it keeps up. */
const PROGRESS_SPAN = 2 * FAN_OUT_BATCH_SIZE;

/**
 * What one emitter remembers between fan-out polls, so a poll reads only the outbox events past
 * the last ones known done instead of anti-joining every event of the watermark's grace window.
 * A new emitter (or one without it) starts from the persisted watermark.
 */
export interface FanOutProgress {
  /**
   * The outbox sequence up to which every event is fanned out (committed with its marker) and no
   * sequence number is missing, but below an event older than the grace (as for the watermark):
   * a missing one may be a transaction still open, whose event must be fanned out when it commits.
   */
  fannedOutThrough: string | null;
  /** Whether the last poll stopped at its batch's limit, so more events may be waiting: poll again at once. */
  more?: boolean;
  /** Deliveries per event of the last batch: the next poll reads about a batch's worth of deliveries. */
  deliveriesPerEvent?: number;
}

/**
 * An emitter taking the deliveries it fans out straight to sending: they are inserted leased to it
 * (`claimed_until`, as a claim would) and handed over once their transaction commits, so a fresh
 * delivery waits for no claim statement. Only what its held caps have room for is taken; the rest
 * is inserted unleased for the claim, which keeps the fairness caps and order.
 */
export interface FanOutHandOff {
  /** Seconds a handed delivery stays leased (the claim's lease). */
  leaseSeconds: number;
  /** Whether the emitter takes one more due delivery of this tenant and target now, counting it if so. */
  accept(tenantId: string, targetKey: string): boolean;
  /** Receives the accepted deliveries once their rows are committed; never called for a rolled-back batch. */
  deliver(deliveries: ClaimedDelivery[]): void;
}

/** What the fan-out needs besides a transaction. */
export interface FanOutOptions {
  /** Opens event snapshots and seals the bodies. */
  secrets: ServiceSecrets;
  /** The retry schedule, whose first step delays a delivery's first attempt. */
  retryScheduleSeconds: readonly number[];
}

/** A webhook destination as the fan-out matches it against events. */
export interface FanOutDestination {
  id: string;
  tenant_id: string;
  environment: ApiKeyEnvironment;
  version: WebhookVersion;
  /** Event types it subscribed to; null for every type. */
  events: string[] | null;
  url: string;
  secret_encrypted: string;
}

/** An event as the fan-out reads it from the outbox. */
type OutboxRow = EventForDelivery & { seq: string; snapshot: string | null; traceContext: Record<string, string> | null };

/**
 * Whether an (active) destination receives an event: same tenant and environment, and subscribed
 * to its type (no list means every type). A session's callback receives the session's events of
 * its own tenant and environment. The one-statement create (src/sessions/create-batch.ts,
 * `webhooks_done`) writes this rule in SQL, to mark events without a target done at once.
 */
export function destinationReceives(
  destination: Pick<FanOutDestination, 'tenant_id' | 'environment' | 'events'>,
  event: Pick<EventForDelivery, 'tenantId' | 'environment' | 'type'>,
): boolean {
  return (
    destination.tenant_id === event.tenantId &&
    destination.environment === event.environment &&
    (destination.events === null || destination.events.includes(event.type))
  );
}

/** A fan-out read row: the poll's progress, and an event past it with its session's callback (none on an empty poll). */
interface FanOutRow {
  progress: string;
  seq: string | null;
  id: string;
  tenant_id: string;
  environment: ApiKeyEnvironment;
  type: EventType;
  session_id: string | null;
  payload: EventPayload;
  snapshot: string | null;
  trace_context: Record<string, string> | null;
  created_at: Date;
  callback: string | null;
  callback_tenant_id: string | null;
  callback_environment: ApiKeyEnvironment | null;
  /** The active destinations of the batch's tenants, on the first event's row only (sent once). */
  destinations: FanOutDestination[] | null;
}

/**
 * Outbox events a poll reads: as many as make about {@link FAN_OUT_MAX_DELIVERIES} at the last
 * batch's deliveries per event, and at most {@link FAN_OUT_BATCH_SIZE}.
 */
function eventLimitOf(progress: FanOutProgress): number {
  const perEvent = Math.max(1, progress.deliveriesPerEvent ?? 1);
  return Math.max(1, Math.min(FAN_OUT_BATCH_SIZE, Math.ceil(FAN_OUT_MAX_DELIVERIES / perEvent)));
}

/**
 * Turns committed, not yet fanned-out events into delivery rows and marks them done, in one
 * transaction of four round trips (begin, one read, one write, commit); returns how many events it
 * handled. A batch holds up to {@link FAN_OUT_BATCH_SIZE} events and, past its first event, at most
 * {@link FAN_OUT_MAX_DELIVERIES} deliveries, so a large fan-out starts sending after a short insert.
 * It reads past `progress` (moved forward first over what is done since), or past the watermark
 * without it, and sets `progress.more` when events may be waiting beyond the batch.
 */
export async function fanOutOnce(
  em: EntityManager,
  options: FanOutOptions,
  progress: FanOutProgress = { fannedOutThrough: null },
  handOff?: FanOutHandOff,
): Promise<number> {
  const handed: ClaimedDelivery[] = [];
  const eventLimit = eventLimitOf(progress);
  const fannedOut = await em.transactional(async (tx) => {
    // One statement: `start`…`progress` walk the events past what this emitter knows done (or the
    // watermark) in sequence order and stop before the first one not fanned out yet, or the first
    // after a missing sequence number younger than the grace; they read committed state only, so
    // the progress may be kept whether this transaction commits or not. `picked` locks the events
    // past it that are not fanned out, each with its session's callback, and the first row carries
    // the batch's destinations. With nothing to do, one row carries the progress alone.
    const rows = await tx.execute<FanOutRow[]>(
      `with start as (
         select greatest(coalesce((select seq from webhook_cursor where id = 1), 0), ?::bigint) as seq
       ), span as (
         select e.seq, e.created_at,
           e.seq - lag(e.seq, 1, (select seq from start)) over (order by e.seq) > 1 as after_gap,
           m.event_seq is not null as done
         from outbox_event e
         -- One marker probe per event read (never a hash of every marker), and the scan stops at the limit.
         left join lateral (select f.event_seq from webhook_fanout f where f.event_seq = e.seq limit 1) m on true
         where e.seq > (select seq from start)
         order by e.seq limit ?
       ), progress as (
         select coalesce((
           select max(p.seq) from span p where p.seq < coalesce((
             select min(b.seq) from span b
             where not b.done or (b.after_gap and b.created_at >= now() - make_interval(secs => ?))
           ), 9223372036854775807)
         ), (select seq from start)) as seq
       ), picked as (
         select e.seq, e.id, e.tenant_id, e.environment, e.type, e.session_id, e.payload, e.snapshot, e.trace_context, e.created_at
         from outbox_event e
         where e.seq > (select seq from progress) and not exists (select 1 from webhook_fanout f where f.event_seq = e.seq)
         order by e.seq limit ? for update of e skip locked
       )
       select pr.seq as progress, p.*, s.callback, s.tenant_id as callback_tenant_id, s.environment as callback_environment,
         case when p.seq = (select min(seq) from picked) then (
           select coalesce(jsonb_agg(jsonb_build_object('id', w.id, 'tenant_id', w.tenant_id, 'environment', w.environment,
             'version', w.version, 'events', w.events, 'url', w.url, 'secret_encrypted', w.secret_encrypted) order by w.created_at, w.id), '[]'::jsonb)
           from webhook_destination w where w.active and w.tenant_id in (select tenant_id from picked)
         ) end as destinations
       from progress pr
       left join picked p on true
       left join session s on s.id = p.session_id and s.callback is not null
       order by p.seq`,
      [progress.fannedOutThrough, PROGRESS_SPAN, WATERMARK_GRACE_SECONDS, eventLimit],
      'all',
    );
    progress.fannedOutThrough = String(rows[0]!.progress);
    progress.more = false;
    if (rows[0]!.seq === null) return 0;
    const destinations = rows[0]!.destinations ?? [];
    const callbackBySession = new Map(
      rows.flatMap((row) =>
        row.callback
          ? [
              [
                row.session_id!,
                { tenant_id: row.callback_tenant_id!, environment: row.callback_environment!, callback: row.callback },
              ] as const,
            ]
          : [],
      ),
    );
    const targetsOf = (event: EventForDelivery) => {
      const subscribed = destinations.filter((destination) => destinationReceives(destination, event));
      const callback = event.sessionId ? callbackBySession.get(event.sessionId) : undefined;
      const ownCallback = callback && callback.tenant_id === event.tenantId && callback.environment === event.environment;
      return { subscribed, callback: ownCallback ? callback.callback : null };
    };
    // The batch ends before the event that would take it past its deliveries (its first event always goes).
    const events: OutboxRow[] = [];
    let deliveryCount = 0;
    for (const row of rows) {
      const event: OutboxRow = {
        seq: row.seq!,
        id: row.id,
        ...storedEvent(row.type, row.payload),
        tenantId: row.tenant_id,
        environment: row.environment,
        sessionId: row.session_id,
        snapshot: row.snapshot,
        traceContext: row.trace_context,
        createdAt: new Date(row.created_at),
      };
      const { subscribed, callback } = targetsOf(event);
      const count = subscribed.length + (callback ? 1 : 0);
      if (events.length > 0 && deliveryCount + count > FAN_OUT_MAX_DELIVERIES) break;
      events.push(event);
      deliveryCount += count;
    }
    progress.more = events.length < rows.length || rows.length >= eventLimit;
    progress.deliveriesPerEvent = deliveryCount / events.length;
    const built = await deliveriesFor(tx as EntityManager, options, events, targetsOf);
    const now = Date.now();
    // Destination deliveries due now go to the emitter within its caps (callbacks, whose signing
    // secret is looked up per session, and later first attempts are left to the claim).
    const deliveries = built.map(({ destination, plaintext: _plaintext, ...row }) => ({
      ...row,
      claimed: Boolean(handOff && destination && row.next_attempt_at.getTime() <= now && handOff.accept(row.tenant_id, destination.id)),
    }));
    // The deliveries and the events' markers in one statement; a row another emitter inserted
    // first (the conflict) is not returned, so not ours to send.
    const inserted = await tx.execute<{ id: string }[]>(
      `with inserted as (
         insert into webhook_delivery (id, tenant_id, environment, event_id, event_type, session_id, destination_id, callback_url, target, body, status,
                                       next_attempt_at, trace_context, claimed_until)
         select x.id, x.tenant_id, x.environment, x.event_id, x.event_type, x.session_id, x.destination_id, x.callback_url, x.target, x.body, 'pending',
                x.next_attempt_at, x.trace_context, case when x.claimed then now() + make_interval(secs => ?) end
         from jsonb_to_recordset(?::jsonb) as x(id uuid, tenant_id uuid, environment text, event_id uuid, event_type text, session_id uuid,
           destination_id uuid, callback_url text, target text, body text, next_attempt_at timestamptz, trace_context jsonb, claimed boolean)
         on conflict (event_id, target) where event_id is not null do nothing
         returning id
       ), marked as (
         insert into webhook_fanout (event_seq) select value::bigint from jsonb_array_elements_text(?::jsonb) on conflict do nothing
       )
       select id from inserted`,
      [handOff?.leaseSeconds ?? 0, JSON.stringify(deliveries), JSON.stringify(events.map((event) => event.seq))],
      'all',
    );
    const ours = new Set(inserted.map((row) => row.id));
    built.forEach(({ destination, plaintext, ...row }, index) => {
      if (!destination || !deliveries[index]!.claimed || !ours.has(row.id)) return;
      handed.push({
        id: row.id,
        tenant_id: row.tenant_id,
        target_key: destination.id,
        destination_id: destination.id,
        callback_url: null,
        body: row.body,
        plaintext,
        schedule_position: 0,
        destination_url: destination.url,
        destination_active: true,
        secret_encrypted: destination.secret_encrypted,
        session_environment: null,
        callback_secret_sealed: null,
        trace_context: row.trace_context,
      });
    });
    return events.length;
  });
  if (handed.length > 0) handOff!.deliver(handed);
  return fannedOut;
}

/**
 * The delivery rows of a batch of events: one per subscribed active destination, one per session
 * callback, each with its body sealed and, for the hand-off, as built.
 */
async function deliveriesFor(
  tx: EntityManager,
  options: FanOutOptions,
  events: OutboxRow[],
  targetsOf: (event: EventForDelivery) => { subscribed: FanOutDestination[]; callback: string | null },
) {
  const decisions = await decisionsOf(tx, options.secrets, events, targetsOf);
  const firstAttemptAt = () => new Date(Date.now() + (nextRetryDelayMs(options.retryScheduleSeconds, 0) ?? 0));
  return events.flatMap((event) => {
    const { subscribed, callback } = targetsOf(event);
    const decision = decisions.get(event.id) ?? null;
    const common = {
      tenant_id: event.tenantId,
      environment: event.environment,
      event_id: event.id,
      event_type: event.type,
      session_id: event.sessionId,
      trace_context: event.traceContext,
    };
    // Bodies carry service tokens and personal data: sealed at rest, opened only to sign and send
    // (a handed-over delivery is sent from the body it was sealed from). An event's body in one
    // version is built and sealed once for all its targets of that version: the rows hold copies of
    // one ciphertext, which tells no more than their shared event id.
    const bodies = new Map<WebhookVersion, { plaintext: string; body: string }>();
    const sealed = (version: WebhookVersion) => {
      let built = bodies.get(version);
      if (!built) {
        const plaintext = buildWebhookBody(version, event, decision);
        built = { plaintext, body: options.secrets.encrypt(plaintext) };
        bodies.set(version, built);
      }
      return built;
    };
    const rows = subscribed.map((destination) => ({
      ...common,
      destination: destination as FanOutDestination | null,
      id: randomUUID(),
      destination_id: destination.id as string | null,
      callback_url: null as string | null,
      target: destination.id,
      ...sealed(destination.version),
      next_attempt_at: firstAttemptAt(),
    }));
    if (callback) {
      rows.push({
        ...common,
        destination: null,
        id: randomUUID(),
        destination_id: null,
        callback_url: callback,
        target: 'callback',
        ...sealed('v3'),
        next_attempt_at: firstAttemptAt(),
      });
    }
    return rows;
  });
}

/**
 * The decision each status change's v3 body carries, by event id: the event's own snapshot (the
 * decision as sealed when it happened), or for events recorded before snapshots existed the
 * session's decision as it is now, read once per session that a v3 target needs it for.
 */
async function decisionsOf(
  tx: EntityManager,
  secrets: ServiceSecrets,
  events: OutboxRow[],
  targetsOf: (event: EventForDelivery) => { subscribed: FanOutDestination[]; callback: string | null },
): Promise<Map<string, DecisionJson>> {
  const changes = events.filter((event) => event.type === 'session.status_changed' && event.sessionId);
  const unsealed = changes.filter((event) => {
    if (event.snapshot) return false;
    const { subscribed, callback } = targetsOf(event);
    // Every version says why (v1 and v2 carry the decision's `reasons`), so any receiver needs the decision.
    return callback !== null || subscribed.length > 0;
  });
  const current = await readDecisions(tx, secrets, [...new Set(unsealed.map((event) => event.sessionId!))]);
  const decisions = new Map<string, DecisionJson>();
  for (const event of changes) {
    if (event.snapshot) decisions.set(event.id, JSON.parse(secrets.decrypt(event.snapshot)) as DecisionJson);
    else {
      const decision = current.get(event.sessionId!);
      if (decision) decisions.set(event.id, decisionJson(decision));
    }
  }
  return decisions;
}

/**
 * Moves the watermark up to the newest event that is old enough and below every unfinished one,
 * then prunes the markers under it, so the fan-out query never rescans history.
 */
export async function advanceWatermark(em: EntityManager): Promise<void> {
  await em.execute(
    `update webhook_cursor c set seq = coalesce((
       select max(e.seq) from outbox_event e
       where e.seq > c.seq
         and e.created_at < now() - make_interval(secs => ?)
         and e.seq < coalesce((
           select min(u.seq) from outbox_event u
           where u.seq > c.seq and not exists (select 1 from webhook_fanout f where f.event_seq = u.seq)
         ), 9223372036854775807)
     ), c.seq)
     where c.id = 1`,
    [WATERMARK_GRACE_SECONDS],
    'run',
  );
  await em.execute('delete from webhook_fanout where event_seq <= (select seq from webhook_cursor where id = 1)', [], 'run');
}
