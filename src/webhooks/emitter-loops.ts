/**
 * The webhook emitter's loops: the fan-out loop turns committed outbox events into deliveries
 * (delivery-fanout.ts), the delivery loop claims due deliveries within the in-flight caps and sends them
 * (dispatch.ts), and finished attempts go to the attempt log (attempt-log.ts). This file holds
 * only the scheduling: wake-ups, polling, and what is in flight.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { EventBus, PublishedEvent } from '../events/outbox.js';
import { AttemptLog } from './attempt-log.js';
import { DeliveryDispatcher, type ClaimedDelivery } from './dispatch.js';
import { advanceWatermark, FAN_OUT_BATCH_SIZE, fanOutOnce, WATERMARK_INTERVAL_MS, type FanOutProgress } from './delivery-fanout.js';
import { WEBHOOK_TIMEOUT_MS } from './http.js';

/** Deliveries in flight at once per emitter (sockets to receivers). */
export const DEFAULT_MAX_IN_FLIGHT = 256;
/** Deliveries in flight at once to one target (destination or callback URL). */
export const DEFAULT_MAX_IN_FLIGHT_PER_TARGET = 16;
/**
 * Claimed deliveries a target may have waiting in this emitter beyond those in flight, as a
 * multiple of its in-flight cap: the next one starts as soon as one finishes, and a claim (one
 * statement scanning the due queue) serves a batch per target rather than each freed slot.
 * Only with a lease long enough that a waiting delivery is sent well before it runs out.
 */
const PREFETCH_FACTOR = 1;
/** Deliveries in flight at once for one tenant: an eighth of the window. */
export const DEFAULT_MAX_IN_FLIGHT_PER_TENANT = 32;
/** Free slots worth a claim query at most: claims stay batched, yet slow receivers cannot starve others. */
const MIN_CLAIM_BATCH = 16;

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
  /** Deliveries in flight at once to one destination or callback URL (a slow receiver holds no more). @default 16 */
  maxInFlightPerTarget?: number;
  /** Deliveries in flight at once for one tenant (its slow endpoints cannot take every slot). @default 32 */
  maxInFlightPerTenant?: number;
  /** Told of every HTTP attempt made (the `/metrics` delivery series). */
  onAttempt?: (destination: string, succeeded: boolean, durationMs: number) => void;
}

/** Adds `delta` to a counter of a map, dropping it at zero so the map holds only what is in flight. */
function adjust(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}

/**
 * The webhook emitter: turns committed outbox events into delivery rows and sends due deliveries
 * with Standard Webhooks signatures, recording one attempt row per try. Delivery is at least once
 * (a claim is a lease). Several emitters may run against one database.
 */
export class WebhookEmitter {
  private readonly dispatcher: DeliveryDispatcher;
  private readonly attempts: AttemptLog;
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
  /** Claimed deliveries per tenant and per target, in flight or waiting here: what the claim's caps count. */
  private readonly heldByTenant = new Map<string, number>();
  private readonly heldByTarget = new Map<string, number>();
  /** Claimed deliveries waiting for a slot of their target, in claim order. */
  private readonly waiting = new Map<string, ClaimedDelivery[]>();
  private waitingCount = 0;
  /** Deliveries a target may hold here (in flight and waiting). */
  private readonly maxHeldPerTarget: number;
  private fanOutWaiter: (() => void) | null = null;
  private deliveryWaiter: (() => void) | null = null;
  private fanOutPending = false;
  private deliveryPending = false;
  private loops: Promise<void>[] = [];
  private readonly wakeTimers = new Set<NodeJS.Timeout>();
  private lastWatermarkAt = 0;
  /** The outbox sequence this emitter knows fanned out: each poll reads only past it. */
  private readonly fanOutProgress: FanOutProgress = { fannedOutThrough: null };
  private readonly onBusEvent = (event: PublishedEvent) => {
    if (!event.webhooksDone) this.wakeFanOut();
  };

  constructor(private readonly options: EmitterOptions) {
    this.dispatcher = new DeliveryDispatcher(options);
    this.attempts = new AttemptLog(options.orm, options.logger);
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.maxPerTarget = options.maxInFlightPerTarget ?? DEFAULT_MAX_IN_FLIGHT_PER_TARGET;
    this.maxPerTenant = Math.min(options.maxInFlightPerTenant ?? DEFAULT_MAX_IN_FLIGHT_PER_TENANT, this.maxInFlight);
    this.claimBatch = Math.max(1, Math.min(MIN_CLAIM_BATCH, this.maxInFlight - this.maxPerTenant));
    // A waiting delivery is sent within one receiver time-out; its lease must outlast that twice over.
    const prefetch = options.claimLeaseSeconds * 1000 >= 4 * WEBHOOK_TIMEOUT_MS ? PREFETCH_FACTOR : 0;
    this.maxHeldPerTarget = this.maxPerTarget * (1 + prefetch);
  }

  /** Starts the fan-out and delivery loops. */
  start(): void {
    if (this.running) return;
    this.running = true;
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
    this.options.bus?.off('event', this.onBusEvent);
    for (const timer of this.wakeTimers) clearTimeout(timer);
    this.wake();
    await Promise.all(this.loops);
    // Waiting deliveries are claimed: they are sent before stopping, as slots free.
    while (this.inFlight > 0 || this.waitingCount > 0) await new Promise<void>((resolve) => (this.deliveryWaiter = resolve));
    await this.attempts.flush();
    await this.dispatcher.close();
  }

  /** Turns one batch of outbox events into deliveries (delivery-fanout.ts); returns how many events it handled. */
  fanOutOnce(): Promise<number> {
    return fanOutOnce(this.options.orm.em.fork(), this.options, this.fanOutProgress);
  }

  /** Advances the fan-out watermark and prunes the markers under it (delivery-fanout.ts). */
  advanceWatermark(): Promise<void> {
    this.lastWatermarkAt = Date.now();
    return advanceWatermark(this.options.orm.em.fork());
  }

  /** Writes the attempts finished so far. */
  flush(): Promise<void> {
    return this.attempts.flush();
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
      const held = this.inFlight + this.waitingCount;
      const free = this.maxInFlight - held;
      // Claim in batches to keep the database quiet, but small enough ones that slots held by
      // slow receivers (capped per tenant and target) never keep other tenants waiting.
      if (free < this.claimBatch && held > 0) {
        await this.idle('delivery');
        continue;
      }
      let claimed: ClaimedDelivery[] = [];
      try {
        claimed = await this.dispatcher.claim(free, {
          maxPerTenant: this.maxPerTenant,
          maxPerTarget: this.maxHeldPerTarget,
          inFlightByTenant: this.heldByTenant,
          inFlightByTarget: this.heldByTarget,
        });
      } catch (error) {
        this.options.logger.error({ err: error }, 'webhook claim failed');
      }
      for (const delivery of claimed) this.take(delivery);
      if (claimed.length < free) await this.idle('delivery');
    }
  }

  /** Sends a claimed delivery now, or once a slot of its target frees. */
  private take(delivery: ClaimedDelivery): void {
    adjust(this.heldByTenant, delivery.tenant_id, 1);
    adjust(this.heldByTarget, delivery.target_key, 1);
    if ((this.inFlightByTarget.get(delivery.target_key) ?? 0) < this.maxPerTarget) {
      this.launch(delivery);
      return;
    }
    const queue = this.waiting.get(delivery.target_key);
    if (queue) queue.push(delivery);
    else this.waiting.set(delivery.target_key, [delivery]);
    this.waitingCount += 1;
  }

  /** Sends one claimed delivery in the background and queues its result; the next waiting one of its target follows it. */
  private launch(delivery: ClaimedDelivery): void {
    this.inFlight += 1;
    adjust(this.inFlightByTenant, delivery.tenant_id, 1);
    adjust(this.inFlightByTarget, delivery.target_key, 1);
    void this.dispatcher
      .attempt(delivery)
      .then(
        (result) => {
          if (result.nextAttemptAt) this.wakeAt(result.nextAttemptAt.getTime() - Date.now());
          if (result.attempted)
            this.options.onAttempt?.(delivery.destination_id ?? 'callback', result.status === 'succeeded', result.durationMs);
          this.attempts.queue(result);
        },
        (error: unknown) => this.options.logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt crashed'),
      )
      .finally(() => {
        this.inFlight -= 1;
        adjust(this.inFlightByTenant, delivery.tenant_id, -1);
        adjust(this.inFlightByTarget, delivery.target_key, -1);
        adjust(this.heldByTenant, delivery.tenant_id, -1);
        adjust(this.heldByTarget, delivery.target_key, -1);
        const queue = this.waiting.get(delivery.target_key);
        const next = queue?.shift();
        if (next) {
          this.waitingCount -= 1;
          if (queue!.length === 0) this.waiting.delete(delivery.target_key);
          this.launch(next);
        }
        // A claim is worth it once the target has room for a batch again, or for what others wait on.
        if (!queue || queue.length === 0 || !this.running) this.wakeDelivery();
      });
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
}
