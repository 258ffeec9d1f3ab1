import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { WebhookAttemptStatus, WebhookDeliveryStatus, WebhookVersion } from '../../entities/webhook.entity.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { EventBus, PublishedEvent } from '../events/outbox.js';
import { nowSeconds } from '../time.js';
import { WebhookHttpClient, type SendResult } from './http.js';
import { buildWebhookBody, type EventForDelivery } from './payloads.js';
import { decisionJson, readDecisions, type DecisionJson } from '../sessions/decision.js';
import { nextRetryDelayMs, parseRetryAfter } from './schedule.js';
import { signingKeyOf, signWebhook } from './signing.js';
import { sealedCallbackSecret } from '../tenants/callback-secrets.js';

/** Outbox events turned into deliveries per fan-out transaction. */
export const FAN_OUT_BATCH_SIZE = 500;
/** Deliveries in flight at once per emitter (sockets to receivers). */
export const DEFAULT_MAX_IN_FLIGHT = 256;
/** Deliveries in flight at once to one target (destination or callback URL). */
export const DEFAULT_MAX_IN_FLIGHT_PER_TARGET = 8;
/** Deliveries in flight at once for one tenant: an eighth of the window. */
export const DEFAULT_MAX_IN_FLIGHT_PER_TENANT = 32;
/** Free slots worth a claim query at most: claims stay batched, yet slow receivers cannot starve others. */
const MIN_CLAIM_BATCH = 16;
/** Due deliveries a claim looks at per slot it fills, to find other tenants' behind one tenant's backlog. */
const CLAIM_SCAN_FACTOR = 8;
/** Results written per flush; a flush also runs whenever {@link FLUSH_DELAY_MS} passes. */
const FLUSH_BATCH_SIZE = 256;
/** Longest a finished attempt waits before its row is written, in milliseconds. */
const FLUSH_DELAY_MS = 10;
/** How often the fan-out watermark advances and old markers are pruned, in milliseconds. */
const WATERMARK_INTERVAL_MS = 30_000;
/**
 * Age after which an outbox event may fall below the watermark, in seconds. Sequence numbers
 * commit out of order, so a low `seq` can still appear while its transaction runs; we assume no
 * transaction that records events stays open this long.
 */
const WATERMARK_GRACE_SECONDS = 300;
/** HMAC keys of destination secrets one emitter keeps derived, the least recently used dropped first. */
const SIGNING_KEY_CACHE_MAX = 10_000;
/** Characters of an error message kept on an attempt row. */
const ERROR_MAX_CHARS = 1000;

/** Options of {@link WebhookEmitter}. */
export interface EmitterOptions {
  /** An ORM of the emitter's own (its own pool), never a request's. */
  orm: MikroORM;
  /** Decrypts destination secrets. */
  secrets: ServiceSecrets;
  logger: Logger;
  /** Development only: let destinations on 127.0.0.1 receive (DEV_ALLOW_LOOPBACK_WEBHOOKS). */
  allowLoopback: boolean;
  /** Seconds before each attempt; ±20% jitter is added. */
  retryScheduleSeconds: readonly number[];
  /** Seconds a claimed delivery stays reserved before another emitter may resend it. */
  claimLeaseSeconds: number;
  /** Milliseconds between polls when nothing wakes the emitter. */
  pollIntervalMs: number;
  /** In-process events wake the fan-out at once (the server's bus); a lone emitter polls. */
  bus?: EventBus;
  /** Deliveries in flight at once. @default 256 */
  maxInFlight?: number;
  /** Deliveries in flight at once to one destination or callback URL (a slow receiver holds no more). @default 8 */
  maxInFlightPerTarget?: number;
  /** Deliveries in flight at once for one tenant (its slow endpoints cannot take every slot). @default 32 */
  maxInFlightPerTenant?: number;
}

/** A delivery claimed for one attempt, with what sending it needs. */
interface ClaimedDelivery {
  id: string;
  tenant_id: string;
  /** The destination id, or `cb:` and the callback URL: what the per-target cap counts. */
  target_key: string;
  destination_id: string | null;
  callback_url: string | null;
  body: string;
  schedule_position: number;
  destination_url: string | null;
  destination_active: boolean | null;
  secret_encrypted: string | null;
  /** For a callback: the environment of its session, whose callback secret signs it. */
  session_environment: ApiKeyEnvironment | null;
  /** That environment's sealed callback secret; null until the tenant's first use of it. */
  callback_secret_sealed: string | null;
}

/** A finished attempt waiting to be written. */
interface AttemptResult {
  deliveryId: string;
  tenantId: string;
  attemptedAt: Date;
  status: WebhookAttemptStatus;
  deliveryStatus: WebhookDeliveryStatus;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  nextAttemptAt: Date | null;
  /** Destination to deactivate (it answered 410). */
  deactivateDestinationId: string | null;
  /** False when no HTTP try was made (destination gone or inactive): no attempt row. */
  attempted: boolean;
}

/** Emitters running in this process, so API actions (test, replay) can wake them without polling. */
const localEmitters = new Set<WebhookEmitter>();

/** Wakes every emitter of this process; a separate emitter process finds the work on its next poll. */
export function wakeLocalEmitters(): void {
  for (const emitter of localEmitters) emitter.wake();
}

/** Adds `delta` to a counter of a map, dropping it at zero so the map holds only what is in flight. */
function adjust(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}

/** Removes NUL characters, which PostgreSQL text and jsonb cannot hold, and caps the length. */
function storable(text: string | null, maxChars: number): string | null {
  if (text === null) return null;
  return text.replaceAll('\u0000', '').slice(0, maxChars);
}

/**
 * The webhook emitter: turns committed outbox events into delivery rows (one per event and
 * target, idempotently, with a marker per event in the same transaction) and sends due
 * deliveries with Standard Webhooks signatures, recording one attempt row per try. Delivery is
 * at least once: a delivery is claimed with a lease, so one claimed by a crashed emitter is sent
 * again when the lease runs out. Several emitters may run against one database.
 */
export class WebhookEmitter {
  private readonly http: WebhookHttpClient;
  private readonly maxInFlight: number;
  private readonly maxPerTarget: number;
  private readonly maxPerTenant: number;
  /** Free slots that make a claim worth it: never more than a saturated tenant leaves to the others. */
  private readonly claimBatch: number;
  private running = false;
  private inFlight = 0;
  /** In-flight deliveries per tenant and per target, for the fairness caps of each claim. */
  private readonly inFlightByTenant = new Map<string, number>();
  private readonly inFlightByTarget = new Map<string, number>();
  private readonly results: AttemptResult[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private fanOutWaiter: (() => void) | null = null;
  private deliveryWaiter: (() => void) | null = null;
  private fanOutPending = false;
  private deliveryPending = false;
  private loops: Promise<void>[] = [];
  private readonly wakeTimers = new Set<NodeJS.Timeout>();
  private readonly keyCache = new LRUCache<string, Buffer>({ max: SIGNING_KEY_CACHE_MAX });
  private lastWatermarkAt = 0;
  private readonly onBusEvent = (event: PublishedEvent) => {
    if (!event.webhooksDone) this.wakeFanOut();
  };

  constructor(private readonly options: EmitterOptions) {
    this.http = new WebhookHttpClient(options.allowLoopback);
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.maxPerTarget = options.maxInFlightPerTarget ?? DEFAULT_MAX_IN_FLIGHT_PER_TARGET;
    this.maxPerTenant = Math.min(options.maxInFlightPerTenant ?? DEFAULT_MAX_IN_FLIGHT_PER_TENANT, this.maxInFlight);
    this.claimBatch = Math.max(1, Math.min(MIN_CLAIM_BATCH, this.maxInFlight - this.maxPerTenant));
  }

  /** Starts the fan-out and delivery loops. */
  start(): void {
    if (this.running) return;
    this.running = true;
    localEmitters.add(this);
    this.options.bus?.on('event', this.onBusEvent);
    this.loops = [this.fanOutLoop(), this.deliveryLoop()];
  }

  /** Wakes both loops now (new events or new due deliveries). */
  wake(): void {
    this.wakeFanOut();
    this.wakeDelivery();
  }

  /** Stops taking work, waits for in-flight sends and writes their attempts, then closes sockets. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    localEmitters.delete(this);
    this.options.bus?.off('event', this.onBusEvent);
    for (const timer of this.wakeTimers) clearTimeout(timer);
    this.wake();
    await Promise.all(this.loops);
    while (this.inFlight > 0) await new Promise<void>((resolve) => (this.deliveryWaiter = resolve));
    await this.flush();
    await this.http.close();
  }

  private wakeFanOut(): void {
    this.fanOutPending = true;
    const waiter = this.fanOutWaiter;
    this.fanOutWaiter = null;
    waiter?.();
  }

  private wakeDelivery(): void {
    this.deliveryPending = true;
    const waiter = this.deliveryWaiter;
    this.deliveryWaiter = null;
    waiter?.();
  }

  /** Waits for a wake-up or the poll interval, whichever comes first. */
  private async idle(kind: 'fanOut' | 'delivery', maxMs = this.options.pollIntervalMs): Promise<void> {
    if (kind === 'fanOut' ? this.fanOutPending : this.deliveryPending) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (kind === 'fanOut') this.fanOutWaiter = done;
      else this.deliveryWaiter = done;
    });
  }

  private async fanOutLoop(): Promise<void> {
    while (this.running) {
      this.fanOutPending = false;
      let fannedOut = 0;
      try {
        fannedOut = await this.fanOutOnce();
        if (Date.now() - this.lastWatermarkAt > WATERMARK_INTERVAL_MS) await this.advanceWatermark();
      } catch (error) {
        this.options.logger.error({ err: error }, 'webhook fan-out failed');
      }
      if (fannedOut > 0) this.wakeDelivery();
      if (fannedOut < FAN_OUT_BATCH_SIZE) await this.idle('fanOut');
    }
  }

  private async deliveryLoop(): Promise<void> {
    while (this.running) {
      this.deliveryPending = false;
      const free = this.maxInFlight - this.inFlight;
      // Claim in batches to keep the database quiet, but small enough ones that slots held by
      // slow receivers (capped per tenant and target) never keep other tenants waiting.
      if (free < this.claimBatch && this.inFlight > 0) {
        await this.idle('delivery');
        continue;
      }
      let claimed: ClaimedDelivery[] = [];
      try {
        claimed = await this.claim(free);
      } catch (error) {
        this.options.logger.error({ err: error }, 'webhook claim failed');
      }
      for (const delivery of claimed) this.launch(delivery);
      if (claimed.length < free) await this.idle('delivery');
    }
  }

  /** Sends one claimed delivery in the background and queues its result. */
  private launch(delivery: ClaimedDelivery): void {
    this.inFlight += 1;
    adjust(this.inFlightByTenant, delivery.tenant_id, 1);
    adjust(this.inFlightByTarget, delivery.target_key, 1);
    void this.attempt(delivery)
      .then(
        (result) => this.queueResult(result),
        (error: unknown) => this.options.logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt crashed'),
      )
      .finally(() => {
        this.inFlight -= 1;
        adjust(this.inFlightByTenant, delivery.tenant_id, -1);
        adjust(this.inFlightByTarget, delivery.target_key, -1);
        this.wakeDelivery();
      });
  }

  /**
   * Turns up to {@link FAN_OUT_BATCH_SIZE} committed, not yet fanned-out events into delivery
   * rows and marks them done, in one transaction; returns how many events it handled.
   */
  async fanOutOnce(): Promise<number> {
    return this.options.orm.em.fork().transactional(async (tx) => {
      const [cursor] = await tx.execute<{ seq: string }[]>('select seq from webhook_cursor where id = 1', [], 'all');
      const rows = await tx.execute<
        {
          seq: string;
          id: string;
          tenant_id: string;
          environment: ApiKeyEnvironment;
          type: string;
          session_id: string | null;
          payload: Record<string, unknown>;
          snapshot: string | null;
          created_at: Date;
        }[]
      >(
        `select e.seq, e.id, e.tenant_id, e.environment, e.type, e.session_id, e.payload, e.snapshot, e.created_at
         from outbox_event e
         where e.seq > ? and not exists (select 1 from webhook_fanout f where f.event_seq = e.seq)
         order by e.seq limit ? for update of e skip locked`,
        [cursor?.seq ?? '0', FAN_OUT_BATCH_SIZE],
        'all',
      );
      if (rows.length === 0) return 0;
      const events: (EventForDelivery & { seq: string; snapshot: string | null })[] = rows.map((row) => ({
        seq: row.seq,
        id: row.id,
        type: row.type,
        tenantId: row.tenant_id,
        environment: row.environment,
        sessionId: row.session_id,
        payload: row.payload,
        snapshot: row.snapshot,
        createdAt: new Date(row.created_at),
      }));
      const deliveries = await this.deliveriesFor(tx as EntityManager, events);
      if (deliveries.length > 0) {
        await tx.execute(
          `insert into webhook_delivery (id, tenant_id, environment, event_id, event_type, session_id, destination_id, callback_url, target, body, status, next_attempt_at)
           select x.id, x.tenant_id, x.environment, x.event_id, x.event_type, x.session_id, x.destination_id, x.callback_url, x.target, x.body, 'pending', x.next_attempt_at
           from jsonb_to_recordset(?::jsonb) as x(id uuid, tenant_id uuid, environment text, event_id uuid, event_type text, session_id uuid,
             destination_id uuid, callback_url text, target text, body text, next_attempt_at timestamptz)
           on conflict (event_id, target) where event_id is not null do nothing`,
          [JSON.stringify(deliveries)],
          'run',
        );
      }
      await tx.execute(
        `insert into webhook_fanout (event_seq) select value::bigint from jsonb_array_elements_text(?::jsonb) on conflict do nothing`,
        [JSON.stringify(events.map((event) => event.seq))],
        'run',
      );
      return events.length;
    });
  }

  /** The delivery rows of a batch of events: one per subscribed active destination, one per session callback. */
  private async deliveriesFor(tx: EntityManager, events: (EventForDelivery & { snapshot: string | null })[]) {
    const tenantIds = [...new Set(events.map((event) => event.tenantId))];
    const sessionIds = [...new Set(events.flatMap((event) => (event.sessionId ? [event.sessionId] : [])))];
    const destinations = await tx.execute<
      { id: string; tenant_id: string; environment: ApiKeyEnvironment; version: WebhookVersion; events: string[] | null }[]
    >(
      `select id, tenant_id, environment, version, events from webhook_destination
       where active and tenant_id in (select value::uuid from jsonb_array_elements_text(?::jsonb))
       order by created_at, id`,
      [JSON.stringify(tenantIds)],
      'all',
    );
    const callbacks =
      sessionIds.length === 0
        ? []
        : await tx.execute<{ id: string; tenant_id: string; environment: ApiKeyEnvironment; callback: string }[]>(
            `select id, tenant_id, environment, callback from session
             where callback is not null and id in (select value::uuid from jsonb_array_elements_text(?::jsonb))`,
            [JSON.stringify(sessionIds)],
            'all',
          );
    const callbackBySession = new Map(callbacks.map((row) => [row.id, row]));
    const targetsOf = (event: EventForDelivery) => {
      const subscribed = destinations.filter(
        (destination) =>
          destination.tenant_id === event.tenantId &&
          destination.environment === event.environment &&
          (destination.events === null || destination.events.includes(event.type)),
      );
      const callback = event.sessionId ? callbackBySession.get(event.sessionId) : undefined;
      const ownCallback = callback && callback.tenant_id === event.tenantId && callback.environment === event.environment;
      return { subscribed, callback: ownCallback ? callback.callback : null };
    };
    // The full decision goes into v3 bodies only: the event's own snapshot, or (events recorded
    // before snapshots existed) the session as it is now, loaded once per session that needs it.
    const needDecision = new Set<string>();
    for (const event of events) {
      if (event.type !== 'session.status_changed' || !event.sessionId || event.snapshot) continue;
      const { subscribed, callback } = targetsOf(event);
      if (callback || subscribed.some((destination) => destination.version === 'v3')) needDecision.add(event.sessionId);
    }
    const decisions = await readDecisions(tx, this.options.secrets, [...needDecision]);
    const firstAttemptAt = () => new Date(Date.now() + (nextRetryDelayMs(this.options.retryScheduleSeconds, 0) ?? 0));
    return events.flatMap((event) => {
      const { subscribed, callback } = targetsOf(event);
      const decision =
        event.type !== 'session.status_changed' || !event.sessionId
          ? null
          : event.snapshot
            ? (JSON.parse(this.options.secrets.decrypt(event.snapshot)) as DecisionJson)
            : ((decision) => (decision ? decisionJson(decision) : null))(decisions.get(event.sessionId));
      const common = {
        tenant_id: event.tenantId,
        environment: event.environment,
        event_id: event.id,
        event_type: event.type,
        session_id: event.sessionId,
      };
      const rows = subscribed.map((destination) => ({
        ...common,
        id: randomUUID(),
        destination_id: destination.id,
        callback_url: null,
        target: destination.id,
        // Bodies carry service tokens and personal data: sealed at rest, opened only to sign and send.
        body: this.options.secrets.encrypt(buildWebhookBody(destination.version, event, decision)),
        next_attempt_at: firstAttemptAt(),
      }));
      if (callback) {
        rows.push({
          ...common,
          id: randomUUID(),
          destination_id: null as unknown as string,
          callback_url: callback as unknown as null,
          target: 'callback',
          body: this.options.secrets.encrypt(buildWebhookBody('v3', event, decision)),
          next_attempt_at: firstAttemptAt(),
        });
      }
      return rows;
    });
  }

  /**
   * Moves the watermark up to the newest event that is old enough and below every unfinished
   * one, then prunes the markers under it, so the fan-out query never rescans history.
   */
  async advanceWatermark(): Promise<void> {
    this.lastWatermarkAt = Date.now();
    const em = this.options.orm.em.fork();
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

  /**
   * Claims up to `limit` due deliveries by pushing their next attempt a lease into the future,
   * fairly (Svix's way): tenants and targets at their in-flight cap are skipped, and among the
   * rest each tenant's oldest deliveries go first, round by round, so a tenant with a backlog of
   * slow deliveries takes at most its cap while every other tenant's deliveries are sent at once.
   */
  private async claim(limit: number): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    const fullTenants = [...this.inFlightByTenant].filter(([, count]) => count >= this.maxPerTenant).map(([tenant]) => tenant);
    const fullTargets = [...this.inFlightByTarget].filter(([, count]) => count >= this.maxPerTarget).map(([target]) => target);
    const inFlight = Object.fromEntries([
      ...[...this.inFlightByTenant].map(([tenant, count]) => [`t:${tenant}`, count]),
      ...[...this.inFlightByTarget].map(([target, count]) => [`d:${target}`, count]),
    ]);
    return this.options.orm.em.fork().execute<ClaimedDelivery[]>(
      `with busy as (
         select key, value::int as n from jsonb_each_text(?::jsonb)
       ), candidates as (
         select d.id, d.tenant_id, coalesce(d.destination_id::text, 'cb:' || d.callback_url) as target_key, d.next_attempt_at
         from webhook_delivery d
         where d.status = 'pending' and d.next_attempt_at <= now()
           and d.tenant_id::text <> all (select jsonb_array_elements_text(?::jsonb))
           and coalesce(d.destination_id::text, 'cb:' || d.callback_url) <> all (select jsonb_array_elements_text(?::jsonb))
         order by d.next_attempt_at limit ?
       ), ranked as (
         select c.*,
           row_number() over (partition by c.tenant_id order by c.next_attempt_at) as tenant_rank,
           row_number() over (partition by c.target_key order by c.next_attempt_at) as target_rank
         from candidates c
       ), picked as (
         select r.id from ranked r
         left join busy bt on bt.key = 't:' || r.tenant_id
         left join busy bd on bd.key = 'd:' || r.target_key
         where r.tenant_rank <= ? - coalesce(bt.n, 0) and r.target_rank <= ? - coalesce(bd.n, 0)
         order by r.tenant_rank, r.next_attempt_at limit ?
       ), due as (
         select d.id from webhook_delivery d
         where d.id in (select id from picked) and d.status = 'pending' and d.next_attempt_at <= now()
         for update skip locked
       ), claimed as (
         update webhook_delivery d set next_attempt_at = now() + make_interval(secs => ?)
         from due where d.id = due.id
         returning d.id, d.tenant_id, d.destination_id, d.callback_url, d.session_id, d.body, d.schedule_position, d.next_attempt_at
       )
       select c.id, c.tenant_id, coalesce(c.destination_id::text, 'cb:' || c.callback_url) as target_key,
         c.destination_id, c.callback_url, c.body, c.schedule_position,
         w.url as destination_url, w.active as destination_active, w.secret_encrypted,
         s.environment as session_environment, cs.secret_sealed as callback_secret_sealed
       from claimed c
       left join webhook_destination w on w.id = c.destination_id
       left join session s on c.destination_id is null and s.id = c.session_id
       left join callback_secret cs on cs.tenant_id = c.tenant_id and cs.environment = s.environment
       order by c.next_attempt_at`,
      [
        JSON.stringify(inFlight),
        JSON.stringify(fullTenants),
        JSON.stringify(fullTargets),
        limit * CLAIM_SCAN_FACTOR,
        this.maxPerTenant,
        this.maxPerTarget,
        limit,
        this.options.claimLeaseSeconds,
      ],
      'all',
    );
  }

  /** The HMAC key of a destination's sealed secret, cached per sealed value (rotation changes it). */
  private keyOf(sealed: string): Buffer {
    let key = this.keyCache.get(sealed);
    if (!key) {
      key = signingKeyOf(this.options.secrets.decrypt(sealed));
      this.keyCache.set(sealed, key);
    }
    return key;
  }

  /**
   * The sealed callback secret of the delivery's session environment: a sandbox session's callback
   * is signed with the sandbox secret. Made on the tenant's first callback in that environment.
   */
  private async callbackSecretOf(delivery: ClaimedDelivery): Promise<string> {
    if (delivery.callback_secret_sealed) return delivery.callback_secret_sealed;
    // A callback always belongs to a session; one deleted since is signed as live, the stricter secret.
    const environment = delivery.session_environment ?? 'live';
    return sealedCallbackSecret(this.options.orm.em.fork(), this.options.secrets, delivery.tenant_id, environment);
  }

  /** Makes one HTTP try of a delivery and decides what happens next. */
  private async attempt(delivery: ClaimedDelivery): Promise<AttemptResult> {
    const attemptedAt = new Date();
    const base = { deliveryId: delivery.id, tenantId: delivery.tenant_id, attemptedAt, deactivateDestinationId: null };
    const isCallback = delivery.destination_id === null;
    if (!isCallback && (!delivery.destination_url || !delivery.destination_active || !delivery.secret_encrypted)) {
      return {
        ...base,
        status: 'failed',
        deliveryStatus: 'dead',
        statusCode: null,
        durationMs: 0,
        error: 'destination is inactive or deleted',
        responseBody: null,
        nextAttemptAt: null,
        attempted: false,
      };
    }
    const url = isCallback ? delivery.callback_url! : delivery.destination_url!;
    const key = this.keyOf(isCallback ? await this.callbackSecretOf(delivery) : delivery.secret_encrypted!);
    const body = this.options.secrets.decrypt(delivery.body);
    const headers = signWebhook(key, delivery.id, nowSeconds(), body);
    const result = await this.http.post(url, { ...headers }, body);
    return { ...base, ...this.outcome(delivery, result), attempted: true };
  }

  /** Success on 2xx; 410 and refused targets end the delivery; anything else retries per schedule. */
  private outcome(delivery: ClaimedDelivery, result: SendResult) {
    const common = {
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: storable(result.error, ERROR_MAX_CHARS),
      responseBody: storable(result.responseBody, 4096),
      deactivateDestinationId: null as string | null,
    };
    const status = result.statusCode;
    if (status !== null && status >= 200 && status < 300) {
      return { ...common, status: 'succeeded' as const, deliveryStatus: 'succeeded' as const, nextAttemptAt: null };
    }
    if (status === 410 || result.refused) {
      return {
        ...common,
        status: 'failed' as const,
        deliveryStatus: 'dead' as const,
        nextAttemptAt: null,
        deactivateDestinationId: status === 410 ? delivery.destination_id : null,
      };
    }
    const delayMs = nextRetryDelayMs(
      this.options.retryScheduleSeconds,
      delivery.schedule_position + 1,
      parseRetryAfter(result.retryAfter ?? undefined),
    );
    if (delayMs === null) return { ...common, status: 'failed' as const, deliveryStatus: 'failed' as const, nextAttemptAt: null };
    this.wakeAt(delayMs);
    return { ...common, status: 'failed' as const, deliveryStatus: 'pending' as const, nextAttemptAt: new Date(Date.now() + delayMs) };
  }

  /** Wakes the delivery loop when a retry sooner than the poll interval falls due. */
  private wakeAt(delayMs: number): void {
    if (delayMs >= this.options.pollIntervalMs) return;
    const timer = setTimeout(() => {
      this.wakeTimers.delete(timer);
      this.wakeDelivery();
    }, delayMs + 5);
    this.wakeTimers.add(timer);
  }

  private queueResult(result: AttemptResult): void {
    this.results.push(result);
    if (this.results.length >= FLUSH_BATCH_SIZE) {
      void this.flush();
      return;
    }
    this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /** Writes queued results: attempt rows, delivery states and 410 deactivations, in one transaction. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.flushTimer) clearTimeout(this.flushTimer);
      this.flushTimer = null;
      const batch = this.results.splice(0, this.results.length);
      if (batch.length === 0) return;
      try {
        await this.writeResults(batch);
      } catch (error) {
        // The deliveries stay claimed until their lease ends, then go out again: at least once.
        this.options.logger.error({ err: error, count: batch.length }, 'writing webhook attempts failed');
      }
    });
    return this.flushing;
  }

  private async writeResults(batch: AttemptResult[]): Promise<void> {
    const attempts = batch
      .filter((result) => result.attempted)
      .map((result) => ({
        id: randomUUID(),
        delivery_id: result.deliveryId,
        tenant_id: result.tenantId,
        attempted_at: result.attemptedAt.toISOString(),
        status: result.status,
        status_code: result.statusCode,
        duration_ms: result.durationMs,
        error: result.error,
        response_body: result.responseBody,
        next_attempt_at: result.nextAttemptAt?.toISOString() ?? null,
      }));
    const deliveries = batch.map((result) => ({
      id: result.deliveryId,
      status: result.deliveryStatus,
      counted: result.attempted ? 1 : 0,
      next_attempt_at: result.nextAttemptAt?.toISOString() ?? null,
      status_code: result.statusCode,
      error: result.error,
    }));
    const deactivate = [...new Set(batch.flatMap((result) => (result.deactivateDestinationId ? [result.deactivateDestinationId] : [])))];
    await this.options.orm.em.fork().transactional(async (tx) => {
      if (attempts.length > 0) {
        await tx.execute(
          `insert into webhook_attempt (id, delivery_id, tenant_id, environment, attempted_at, status, status_code, duration_ms, error, response_body, next_attempt_at)
           select x.id, x.delivery_id, x.tenant_id, d.environment, x.attempted_at, x.status, x.status_code, x.duration_ms, x.error, x.response_body, x.next_attempt_at
           from jsonb_to_recordset(?::jsonb) as x(id uuid, delivery_id uuid, tenant_id uuid, attempted_at timestamptz, status text,
             status_code integer, duration_ms integer, error text, response_body text, next_attempt_at timestamptz)
           join webhook_delivery d on d.id = x.delivery_id`,
          [JSON.stringify(attempts)],
          'run',
        );
      }
      await tx.execute(
        `update webhook_delivery d set status = x.status, attempt_count = d.attempt_count + x.counted,
           schedule_position = d.schedule_position + x.counted, next_attempt_at = x.next_attempt_at,
           last_status_code = coalesce(x.status_code, case when x.counted = 1 then null else d.last_status_code end),
           last_error = x.error, updated_at = now()
         from jsonb_to_recordset(?::jsonb) as x(id uuid, status text, counted integer, next_attempt_at timestamptz, status_code integer, error text)
         where d.id = x.id`,
        [JSON.stringify(deliveries)],
        'run',
      );
      if (deactivate.length > 0) {
        await tx.execute(
          `update webhook_destination set active = false, updated_at = now()
           where id in (select value::uuid from jsonb_array_elements_text(?::jsonb))`,
          [JSON.stringify(deactivate)],
          'run',
        );
      }
    });
  }
}
