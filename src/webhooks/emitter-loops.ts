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
import { advanceWatermark, fanOutOnce, WATERMARK_INTERVAL_MS, type FanOutHandOff, type FanOutProgress } from './delivery-fanout.js';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from './http.js';

/** Deliveries in flight at once per emitter (sockets to receivers). */
export const DEFAULT_MAX_IN_FLIGHT = 256;
/** Deliveries in flight at once to one target (destination or callback URL). */
export const DEFAULT_MAX_IN_FLIGHT_PER_TARGET = 16;
/**
 * Claimed deliveries the emitter may hold waiting beyond those in flight, as a multiple of each
 * in-flight cap (per emitter, tenant and target), at most: the next claim runs while the claimed
 * batch is being sent, so no slot waits for a database round trip. A waiting delivery is sent
 * within one receiver time-out per multiple ahead of it, so a multiple is taken only when the
 * lease outlasts that with a time-out to spare ({@link prefetchFactor}).
 */
const MAX_PREFETCH_FACTOR = 2;
/** Deliveries in flight at once for one tenant: an eighth of the window. */
export const DEFAULT_MAX_IN_FLIGHT_PER_TENANT = 32;
/** Free slots worth a claim query at most: claims stay batched, yet slow receivers cannot starve others. */
const MIN_CLAIM_BATCH = 16;

/**
 * How many rounds of in-flight deliveries the emitter may hold claimed ahead: the most, up to
 * {@link MAX_PREFETCH_FACTOR}, whose wait (a time-out per round ahead) and send (one more) end a
 * time-out before the lease does, so a held delivery is not claimed again by another emitter.
 */
export function prefetchFactor(claimLeaseSeconds: number, timeoutMs = DEFAULT_WEBHOOK_TIMEOUT_MS): number {
  const timeouts = (claimLeaseSeconds * 1000) / timeoutMs;
  return Math.max(0, Math.min(MAX_PREFETCH_FACTOR, Math.floor(timeouts) - 2));
}

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
  /** Longest one attempt may take, in milliseconds (WEBHOOK_TIMEOUT_SECONDS). @default 15000 */
  timeoutMs?: number;
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
  /** In-flight caps (sockets): per emitter, per tenant, per target. */
  private readonly maxInFlight: number;
  private readonly maxPerTarget: number;
  private readonly maxPerTenant: number;
  /** Held caps (in flight and claimed waiting here): what each claim may fill up to. */
  private readonly maxHeld: number;
  private readonly maxHeldPerTenant: number;
  private readonly maxHeldPerTarget: number;
  /** Free slots that make a claim worth it: never more than a saturated tenant leaves to the others. */
  private readonly claimBatch: number;
  private running = false;
  private inFlight = 0;
  /** Deliveries claimed and not finished, in flight or waiting. */
  private held = 0;
  /** In-flight deliveries per tenant and per target: the caps of each launch. */
  private readonly inFlightByTenant = new Map<string, number>();
  private readonly inFlightByTarget = new Map<string, number>();
  /** Claimed deliveries per tenant and per target, in flight or waiting here: what the claim's caps count. */
  private readonly heldByTenant = new Map<string, number>();
  private readonly heldByTarget = new Map<string, number>();
  /** Claimed deliveries waiting for a slot, per tenant in claim order. */
  private readonly waiting = new Map<string, ClaimedDelivery[]>();
  private waitingCount = 0;
  /** A delivery waits for the emitter's window (not its tenant's or target's cap): any finish may start it. */
  private windowBlocked = false;
  /** Deliveries finished since the last claim started: a claim is worth it after a batch of them. */
  private finishedSinceClaim = 0;
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
    const rounds = 1 + prefetchFactor(options.claimLeaseSeconds, options.timeoutMs);
    this.maxHeld = this.maxInFlight * rounds;
    this.maxHeldPerTenant = this.maxPerTenant * rounds;
    this.maxHeldPerTarget = this.maxPerTarget * rounds;
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

  /**
   * Stops taking work, gives back what was claimed and not started ({@link releaseWaiting}), waits
   * for in-flight sends and writes their attempts, then closes sockets.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.options.bus?.off('event', this.onBusEvent);
    for (const timer of this.wakeTimers) clearTimeout(timer);
    this.wake();
    await Promise.all(this.loops);
    await this.releaseWaiting();
    while (this.inFlight > 0) await new Promise<void>((resolve) => (this.deliveryWaiter = resolve));
    await this.attempts.flush();
    await this.dispatcher.close();
  }

  /**
   * Puts the deliveries held here waiting for a slot back in the queue: up to two rounds of every
   * target's cap are claimed ahead, and sending them on the way out kept a stop waiting a receiver
   * time-out per round (45 s with hanging receivers). If the release fails, their leases run out.
   */
  private async releaseWaiting(): Promise<void> {
    const unsent = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.waitingCount = 0;
    for (const delivery of unsent) this.unhold(delivery);
    await this.giveBack(unsent);
  }

  /** Puts claimed deliveries that will not be sent here back in the queue; if that fails, their leases run out. */
  private async giveBack(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    await this.dispatcher
      .release(deliveries)
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error, deliveries: deliveries.length }, 'claimed webhooks not released; their leases will run out'),
      );
  }

  /** Turns one batch of outbox events into deliveries (delivery-fanout.ts); returns how many events it handled. */
  fanOutOnce(): Promise<number> {
    return fanOutOnce(this.options.orm.em.fork(), this.options, this.fanOutProgress, this.running ? this.handOff() : undefined);
  }

  /**
   * What one fan-out batch may take straight to sending: due deliveries up to the room the held
   * caps leave (as a claim would), counted as the batch accepts them; they are taken once committed.
   */
  private handOff(): FanOutHandOff {
    let total = 0;
    const byTenant = new Map<string, number>();
    const byTarget = new Map<string, number>();
    return {
      leaseSeconds: this.options.claimLeaseSeconds,
      accept: (tenantId, targetKey) => {
        if (!this.fitsHeld(tenantId, targetKey, total, byTenant.get(tenantId) ?? 0, byTarget.get(targetKey) ?? 0)) return false;
        total += 1;
        adjust(byTenant, tenantId, 1);
        adjust(byTarget, targetKey, 1);
        return true;
      },
      deliver: (deliveries) => {
        for (const delivery of deliveries) this.take(delivery);
      },
    };
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
      // A batch that stopped at its limit (events or deliveries) leaves more waiting: poll again at once.
      if (fannedOut === 0 || !this.fanOutProgress.more) await this.idle('fanOut');
    }
  }

  /**
   * Claims due deliveries while the ones claimed before are being sent: a claim fills what the
   * held caps leave (up to {@link prefetchFactor} rounds beyond the in-flight caps), so when a
   * send finishes the next delivery is already here and the claim's round trip is off the path.
   */
  private async deliveryLoop(): Promise<void> {
    while (this.running) {
      this.deliveryPending = false;
      const free = this.maxHeld - this.held;
      // Claim in batches to keep the database quiet, but small enough ones that slots held by
      // slow receivers (capped per tenant and target) never keep other tenants waiting.
      if (free < this.claimBatch && this.held > 0) {
        await this.idle('delivery');
        continue;
      }
      this.finishedSinceClaim = 0;
      let claimed: ClaimedDelivery[] = [];
      try {
        claimed = await this.dispatcher.claim(free, {
          maxPerTenant: this.maxHeldPerTenant,
          maxPerTarget: this.maxHeldPerTarget,
          inFlightByTenant: this.heldByTenant,
          inFlightByTarget: this.heldByTarget,
        });
      } catch (error) {
        this.options.logger.error({ err: error }, 'webhook claim failed');
      }
      // The claim counted what was held when it started; a fan-out hand-off may have filled the
      // room meanwhile, so what no longer fits the held caps goes back to the queue unsent.
      const unfit = claimed.filter((delivery) => {
        if (!this.fitsHeld(delivery.tenant_id, delivery.target_key)) return true;
        this.take(delivery);
        return false;
      });
      if (unfit.length > 0) await this.giveBack(unfit);
      if (claimed.length < free) await this.idle('delivery');
    }
  }

  /**
   * Whether one more delivery of this tenant and target stays within the held caps (per emitter,
   * tenant and target), beyond what is held here and what a fan-out batch has accepted so far.
   */
  private fitsHeld(tenantId: string, targetKey: string, acceptedTotal = 0, acceptedTenant = 0, acceptedTarget = 0): boolean {
    return (
      this.held + acceptedTotal < this.maxHeld &&
      (this.heldByTenant.get(tenantId) ?? 0) + acceptedTenant < this.maxHeldPerTenant &&
      (this.heldByTarget.get(targetKey) ?? 0) + acceptedTarget < this.maxHeldPerTarget
    );
  }

  /** Whether a delivery may start now: the emitter runs, and its, its tenant's and its target's in-flight caps allow it. */
  private mayLaunch(delivery: ClaimedDelivery): boolean {
    // A stopping emitter starts nothing more: what waits is released (releaseWaiting).
    if (!this.running) return false;
    if (this.inFlight >= this.maxInFlight) {
      this.windowBlocked = true;
      return false;
    }
    return (
      (this.inFlightByTenant.get(delivery.tenant_id) ?? 0) < this.maxPerTenant &&
      (this.inFlightByTarget.get(delivery.target_key) ?? 0) < this.maxPerTarget
    );
  }

  /** Sends a claimed delivery now, or once a slot of the emitter, its tenant and its target frees. */
  private take(delivery: ClaimedDelivery): void {
    this.held += 1;
    adjust(this.heldByTenant, delivery.tenant_id, 1);
    adjust(this.heldByTarget, delivery.target_key, 1);
    if (this.mayLaunch(delivery)) {
      this.launch(delivery);
      return;
    }
    const queue = this.waiting.get(delivery.tenant_id);
    if (queue) queue.push(delivery);
    else this.waiting.set(delivery.tenant_id, [delivery]);
    this.waitingCount += 1;
  }

  /** Starts a tenant's waiting deliveries, oldest first, that its freed slots allow. */
  private launchWaiting(tenantId: string): void {
    const queue = this.waiting.get(tenantId);
    if (!queue) return;
    const kept: ClaimedDelivery[] = [];
    for (const delivery of queue) {
      if (this.mayLaunch(delivery)) this.launch(delivery);
      else kept.push(delivery);
    }
    this.waitingCount -= queue.length - kept.length;
    if (kept.length > 0) this.waiting.set(tenantId, kept);
    else this.waiting.delete(tenantId);
  }

  /** Sends one claimed delivery in the background and queues its result; waiting ones follow as slots free. */
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
      .finally(() => this.finish(delivery));
  }

  /** Stops counting a delivery as held here (finished, or given back by a stop): the claims' caps count what is held. */
  private unhold(delivery: ClaimedDelivery): void {
    this.held -= 1;
    adjust(this.heldByTenant, delivery.tenant_id, -1);
    adjust(this.heldByTarget, delivery.target_key, -1);
  }

  /** Frees a finished delivery's slots, starts what waited on them, and claims again once a batch has finished. */
  private finish(delivery: ClaimedDelivery): void {
    this.inFlight -= 1;
    adjust(this.inFlightByTenant, delivery.tenant_id, -1);
    adjust(this.inFlightByTarget, delivery.target_key, -1);
    this.unhold(delivery);
    this.launchWaiting(delivery.tenant_id);
    if (this.windowBlocked && this.inFlight < this.maxInFlight) {
      // The freed window slot goes to the tenants waiting on it, in the order they first waited.
      this.windowBlocked = false;
      for (const tenantId of [...this.waiting.keys()]) {
        if (this.inFlight >= this.maxInFlight) break;
        this.launchWaiting(tenantId);
      }
    }
    this.finishedSinceClaim += 1;
    // The next claim goes out while what is here is still being sent: after a batch, or when nothing waits.
    if (this.finishedSinceClaim >= this.claimBatch || this.waitingCount === 0 || !this.running) this.wakeDelivery();
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
