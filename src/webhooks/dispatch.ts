/**
 * Webhook dispatch (Svix's worker): claims due deliveries fairly, makes one signed HTTP try of
 * each, and decides what follows (done, retry per schedule, or dead).
 *
 * Raw SQL: (a) `npm run bench:events` (b): deliveries are claimed under per-tenant and per-
 * destination caps in one CTE statement (180 → 423–433 deliveries/s, 675 → 303 claims per 2,100
 * deliveries).
 */
import type { KeyObject } from 'node:crypto';
import { context, trace } from '@opentelemetry/api';
import { contextFromCarrier, currentTraceCarrier, endSpan, SpanKind, tracer } from '../observability/tracing.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { WebhookDeliverySchema, type WebhookAttemptStatus, type WebhookDeliveryStatus } from '../../entities/webhook.entity.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { sealedCallbackSecret } from '../tenants/callback-secrets.js';
import { nowSeconds } from '../shared/time.js';
import { RESPONSE_BODY_CAP_BYTES, WebhookHttpClient, type SendResult } from './http.js';
import { nextRetryDelayMs, parseRetryAfter } from './schedule.js';
import { signingKeyOf, signWebhook } from './signing.js';

/** HMAC keys of destination secrets one emitter keeps derived, the least recently used dropped first. */
const SIGNING_KEY_CACHE_MAX = 10_000;
/** Characters of an error message kept on an attempt row. */
const ERROR_MAX_CHARS = 1000;

/** Options of {@link DeliveryDispatcher}. */
export interface DispatchOptions {
  /** An ORM of the emitter's own (its own pool), never a request's. */
  orm: MikroORM;
  /** Opens bodies and destination secrets. */
  secrets: ServiceSecrets;
  /** Development only: let destinations on 127.0.0.1 receive (DEV_ALLOW_LOOPBACK_WEBHOOKS). */
  allowLoopback: boolean;
  /** Seconds before each attempt; ±20% jitter is added. */
  retryScheduleSeconds: readonly number[];
  /** Seconds a claimed delivery stays reserved before another emitter may resend it. */
  claimLeaseSeconds: number;
  /** Longest one attempt may take, in milliseconds (WEBHOOK_TIMEOUT_SECONDS). @default 15000 */
  timeoutMs?: number;
}

/** What a claim must respect: the caps, and what is in flight per tenant and per target now. */
export interface ClaimFairness {
  maxPerTenant: number;
  maxPerTarget: number;
  inFlightByTenant: ReadonlyMap<string, number>;
  inFlightByTarget: ReadonlyMap<string, number>;
}

/** A delivery claimed for one attempt, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  tenant_id: string;
  /** The destination id, or `cb:` and the callback URL: what the per-target cap counts. */
  target_key: string;
  destination_id: string | null;
  callback_url: string | null;
  body: string;
  /** The body as the fan-out built it before sealing `body`, for a delivery it hands over: sent without opening `body`. */
  plaintext?: string;
  schedule_position: number;
  destination_url: string | null;
  destination_active: boolean | null;
  secret_encrypted: string | null;
  /** For a callback: the environment of its session, whose callback secret signs it. */
  session_environment: ApiKeyEnvironment | null;
  /** That environment's sealed callback secret; null until the tenant's first use of it. */
  callback_secret_sealed: string | null;
  /** The W3C trace context of the request that recorded the event: the POST continues its trace. */
  trace_context: Record<string, string> | null;
}

/** What one try of a delivery came to, and what happens to the delivery next. */
export interface AttemptResult {
  deliveryId: string;
  tenantId: string;
  attemptedAt: Date;
  status: WebhookAttemptStatus;
  deliveryStatus: WebhookDeliveryStatus;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  /** When the delivery is tried again; null when it is finished. */
  nextAttemptAt: Date | null;
  /** Destination to deactivate (it answered 410). */
  deactivateDestinationId: string | null;
  /** False when no HTTP try was made (destination gone or inactive): no attempt row. */
  attempted: boolean;
}

/** Removes NUL characters, which PostgreSQL text and jsonb cannot hold, and caps the length. */
function storable(text: string | null, maxChars: number): string | null {
  if (text === null) return null;
  return text.replaceAll('\u0000', '').slice(0, maxChars);
}

/**
 * The outcome of an HTTP try: success on 2xx; 410 and refused targets end the delivery (410 also
 * deactivates its destination); anything else retries per schedule, a `Retry-After` pushing the
 * retry later, until the schedule is used up.
 */
export function outcomeOf(
  delivery: Pick<ClaimedDelivery, 'destination_id' | 'schedule_position'>,
  result: SendResult,
  retryScheduleSeconds: readonly number[],
): Omit<AttemptResult, 'deliveryId' | 'tenantId' | 'attemptedAt' | 'attempted'> {
  const common = {
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error: storable(result.error, ERROR_MAX_CHARS),
    responseBody: storable(result.responseBody, RESPONSE_BODY_CAP_BYTES),
    deactivateDestinationId: null as string | null,
  };
  const status = result.statusCode;
  if (status !== null && status >= 200 && status < 300) {
    return { ...common, status: 'succeeded', deliveryStatus: 'succeeded', nextAttemptAt: null };
  }
  if (status === 410 || result.refused) {
    return {
      ...common,
      status: 'failed',
      deliveryStatus: 'dead',
      nextAttemptAt: null,
      deactivateDestinationId: status === 410 ? delivery.destination_id : null,
    };
  }
  const delayMs = nextRetryDelayMs(retryScheduleSeconds, delivery.schedule_position + 1, parseRetryAfter(result.retryAfter ?? undefined));
  if (delayMs === null) return { ...common, status: 'failed', deliveryStatus: 'failed', nextAttemptAt: null };
  return { ...common, status: 'failed', deliveryStatus: 'pending', nextAttemptAt: new Date(Date.now() + delayMs) };
}

/**
 * Claims and sends deliveries. Delivery is at least once: a claim reserves a delivery for a lease,
 * so one claimed by a crashed emitter is sent again when the lease runs out.
 */
export class DeliveryDispatcher {
  private readonly http: WebhookHttpClient;
  private readonly keyCache = new LRUCache<string, KeyObject>({ max: SIGNING_KEY_CACHE_MAX });

  constructor(private readonly options: DispatchOptions) {
    this.http = new WebhookHttpClient(options.allowLoopback, options.timeoutMs);
  }

  /**
   * Claims up to `limit` due deliveries by leasing them (`claimed_until`, a HOT update: the column
   * is in no index, so `next_attempt_at` and the queue's indexes stay as they are), fairly (Svix's way): tenants and targets at their in-flight cap are skipped, and among the
   * rest each tenant's oldest deliveries go first, round by round, so a tenant with a backlog of
   * slow deliveries takes at most its cap while every other tenant's deliveries are sent at once.
   * It walks the pending (tenant, target) groups on `webhook_delivery_claim_index` and reads at
   * most a tenant's free slots from each, so a capped tenant's backlog costs one index probe,
   * not a scan of every row of it. A delivery whose lease still runs is skipped; one whose lease
   * ran out (its emitter died before recording the try) is claimed again.
   */
  async claim(limit: number, fairness: ClaimFairness): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    const { maxPerTenant, maxPerTarget, inFlightByTenant, inFlightByTarget } = fairness;
    const fullTargets = [...inFlightByTarget].filter(([, count]) => count >= maxPerTarget).map(([target]) => target);
    const inFlight = Object.fromEntries([
      ...[...inFlightByTenant].map(([tenant, count]) => [`t:${tenant}`, count]),
      ...[...inFlightByTarget].map(([target, count]) => [`d:${target}`, count]),
    ]);
    return this.options.orm.em.fork().execute<ClaimedDelivery[]>(
      `with recursive busy as (
         select key, value::int as n from jsonb_each_text(?::jsonb)
       ), full_targets as (
         select jsonb_array_elements_text(?::jsonb) as target_key
       ), groups as (
         (select d.tenant_id, d.target from webhook_delivery d where d.status = 'pending' order by d.tenant_id, d.target limit 1)
         union all
         select n.tenant_id, n.target from groups g cross join lateral (
           select d.tenant_id, d.target from webhook_delivery d
           where d.status = 'pending' and (d.tenant_id, d.target) > (g.tenant_id, g.target)
           order by d.tenant_id, d.target limit 1
         ) n
       ), open_groups as (
         select g.tenant_id, g.target, ? - coalesce(bt.n, 0) as room
         from groups g
         left join busy bt on bt.key = 't:' || g.tenant_id
         where coalesce(bt.n, 0) < ? and g.target not in (select target_key from full_targets)
       ), candidates as (
         select c.* from open_groups g cross join lateral (
           select d.id, d.tenant_id, coalesce(d.destination_id::text, 'cb:' || d.callback_url) as target_key, d.next_attempt_at
           from webhook_delivery d
           where d.status = 'pending' and d.tenant_id = g.tenant_id and d.target = g.target and d.next_attempt_at <= now()
             and (d.claimed_until is null or d.claimed_until <= now())
             and coalesce(d.destination_id::text, 'cb:' || d.callback_url) not in (select target_key from full_targets)
           order by d.next_attempt_at limit g.room
         ) c
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
           and (d.claimed_until is null or d.claimed_until <= now())
         for update skip locked
       ), claimed as (
         update webhook_delivery d set claimed_until = now() + make_interval(secs => ?)
         from due where d.id = due.id
         returning d.id, d.tenant_id, d.destination_id, d.callback_url, d.session_id, d.body, d.schedule_position, d.next_attempt_at,
           d.trace_context
       )
       select c.id, c.tenant_id, coalesce(c.destination_id::text, 'cb:' || c.callback_url) as target_key,
         c.destination_id, c.callback_url, c.body, c.schedule_position, c.trace_context,
         w.url as destination_url, w.active as destination_active, w.secret_encrypted,
         s.environment as session_environment, cs.secret_sealed as callback_secret_sealed
       from claimed c
       left join webhook_destination w on w.id = c.destination_id
       left join session s on c.destination_id is null and s.id = c.session_id
       left join callback_secret cs on cs.tenant_id = c.tenant_id and cs.environment = s.environment
       order by c.next_attempt_at`,
      [
        JSON.stringify(inFlight),
        JSON.stringify(fullTargets),
        maxPerTenant,
        maxPerTenant,
        maxPerTenant,
        maxPerTarget,
        limit,
        this.options.claimLeaseSeconds,
      ],
      'all',
    );
  }

  /** Makes one HTTP try of a claimed delivery and decides what happens next. */
  async attempt(delivery: ClaimedDelivery): Promise<AttemptResult> {
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
    const body = delivery.plaintext ?? this.options.secrets.decrypt(delivery.body);
    const headers = signWebhook(key, delivery.id, nowSeconds(), body);
    // A client span in the trace of the request that recorded the event; its `traceparent` goes with the POST.
    const span = tracer().startSpan(
      'webhook POST',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': 'POST', 'webhook.delivery_id': delivery.id, 'webhook.target': delivery.target_key },
      },
      contextFromCarrier(delivery.trace_context),
    );
    const traceHeaders = currentTraceCarrier(trace.setSpan(context.active(), span)) ?? {};
    const result = await this.http.post(url, { ...headers, ...traceHeaders }, body);
    const outcome = outcomeOf(delivery, result, this.options.retryScheduleSeconds);
    if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
    endSpan(span, outcome.status === 'succeeded' ? undefined : (outcome.error ?? `HTTP ${result.statusCode}`));
    return { ...base, ...outcome, attempted: true };
  }

  /**
   * Gives claimed deliveries that were never sent back to the queue (their lease cleared), so a
   * stopping emitter's backlog is claimed at once by another one instead of being sent on the way
   * out or waiting for its lease to run out. Only rows still pending and not yet tried by this claim.
   */
  async release(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.options.orm.em
      .fork()
      .nativeUpdate(
        WebhookDeliverySchema,
        { id: { $in: deliveries.map((delivery) => delivery.id) }, status: 'pending', claimedUntil: { $ne: null } },
        { claimedUntil: null },
      );
  }

  /** Closes the sockets to receivers. */
  close(): Promise<void> {
    return this.http.close();
  }

  /** The HMAC key of a destination's sealed secret, cached per sealed value (rotation changes it). */
  private keyOf(sealed: string): KeyObject {
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
}
