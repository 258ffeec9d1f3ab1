import { EventEmitter } from 'node:events';
import type { TenantScope } from '../auth/context.js';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import type { SessionStatus } from '../domain/types.js';
import type { PublishedEvent } from './outbox.js';

/** One committed session status change as subscribers receive it. */
export interface SessionStatusEvent {
  /** The outbox event id: the same on every instance, so clients dedupe with it. */
  id: string;
  /** Outbox sequence number: commit order across the service. */
  seq: number;
  tenantId: string;
  environment: ApiKeyEnvironment;
  sessionId: string;
  workflowId: string;
  vendorData: string;
  /** The status the session moved to. */
  status: SessionStatus;
  /** The status it left; null when the session was created. */
  previousStatus: SessionStatus | null;
  /** Who made the change (api, end_user, decision_engine, reviewer, expiry, import). */
  actor: string;
  /** A reviewer's reason, when one was given. */
  reason: string | null;
  /** When the change happened, Unix seconds. */
  changedAt: number;
  /**
   * True for a change of who holds an in-review case (actor `claim`, reason the holder's name or
   * null when released): not a status change, so only subscribers that ask for claims get it.
   */
  claimChange?: boolean;
}

/** What a subscriber asked for; absent fields do not filter. */
export interface SessionStatusFilter {
  sessionId?: string | null;
  workflowId?: string | null;
  vendorData?: string | null;
  /** Only these new statuses; empty or absent means all. */
  statuses?: readonly SessionStatus[] | null;
  /** Only changes into or out of this status (the review queue: sessions entering and leaving `in_review`). */
  touching?: SessionStatus | null;
  /** Also the claim changes of in-review cases (the review queue); never for other subscribers. */
  claims?: boolean;
}

/** Whose events a subscriber may see: one tenant, one environment (a sandbox key sees sandbox sessions only). */
export type SubscriberScope = TenantScope;

/** Most events a subscriber may have waiting before it is cut off as too slow. */
export const SUBSCRIBER_QUEUE_MAX_EVENTS = 1000;

/** Ends a subscription whose consumer fell more than {@link SUBSCRIBER_QUEUE_MAX_EVENTS} events behind. */
export class SubscriberTooSlowError extends Error {
  constructor() {
    super(
      `More than ${SUBSCRIBER_QUEUE_MAX_EVENTS} status changes were waiting for this subscription; subscribe again and re-read the sessions.`,
    );
  }
}

/** Converts a committed outbox event to a status event; null for other event types. */
export function toSessionStatusEvent(event: PublishedEvent): SessionStatusEvent | null {
  if (event.type !== 'session.status_changed') return null;
  const { payload } = event;
  return {
    id: event.id,
    seq: event.seq,
    tenantId: event.tenantId,
    environment: payload.environment,
    sessionId: payload.session_id,
    workflowId: payload.workflow_id,
    vendorData: payload.vendor_data,
    status: payload.status,
    previousStatus: payload.previous_status,
    actor: payload.actor,
    reason: payload.reason ?? null,
    changedAt: payload.changed_at,
  };
}

/** True when `event` passes every filter the subscriber set. */
export function matchesFilter(event: SessionStatusEvent, filter: SessionStatusFilter): boolean {
  if (event.claimChange && !filter.claims) return false;
  if (filter.sessionId && filter.sessionId !== event.sessionId) return false;
  if (filter.workflowId && filter.workflowId !== event.workflowId) return false;
  if (filter.vendorData != null && filter.vendorData !== event.vendorData) return false;
  if (filter.statuses && filter.statuses.length > 0 && !filter.statuses.includes(event.status)) return false;
  if (filter.touching && event.status !== filter.touching && event.previousStatus !== filter.touching) return false;
  return true;
}

/** The key subscribers are grouped under, so a publish only visits the subscribers of that tenant and environment. */
function scopeKey(scope: SubscriberScope): string {
  return `${scope.tenantId}:${scope.environment}`;
}

/**
 * Takes a subscription's events as they are published, synchronously, instead of reading them one
 * promise at a time (src/graphql/shared-subscribe.ts writes each to its socket at once: with
 * thousands of subscribers the promise hops per event cost as much as the writes).
 */
export interface EventConsumer<T> {
  /** Takes one event; false when the consumer fell too far behind, which ends the subscription with {@link SubscriberTooSlowError}. */
  accept(event: T): boolean;
}

/** One subscription's events: read one at a time, or pushed as they come once `pushTo` named a consumer. */
export interface StatusSubscription extends AsyncIterableIterator<SessionStatusEvent> {
  /**
   * Pushes every further event to `consumer` as it is published, after those already queued (in
   * order); false, and nothing changes, when the subscription is already being read or has ended.
   */
  pushTo(consumer: EventConsumer<SessionStatusEvent>): boolean;
  /** Ends the subscription: unregisters it and releases a waiting reader. */
  return(): Promise<IteratorResult<SessionStatusEvent>>;
}

/**
 * One subscription's events: registered with the hub at once (no change is missed between
 * subscribing and the first read), queued up to a bound, and unregistered by `return()` —
 * which graphql-ws calls on `complete` and when the socket closes. Either read (`next()`) or,
 * once {@link SubscriberQueue.pushTo} named a consumer, pushed to it; `next()` then only reports
 * the end (done, or the failure).
 */
class SubscriberQueue implements StatusSubscription {
  private readonly queued: SessionStatusEvent[] = [];
  private waiting: { resolve: (result: IteratorResult<SessionStatusEvent>) => void; reject: (error: Error) => void } | null = null;
  private failure: Error | null = null;
  private done = false;
  private consumer: EventConsumer<SessionStatusEvent> | null = null;

  constructor(
    readonly filter: SessionStatusFilter,
    private readonly unregister: (queue: SubscriberQueue) => void,
  ) {}

  /** See {@link StatusSubscription.pushTo}. */
  pushTo(consumer: EventConsumer<SessionStatusEvent>): boolean {
    if (this.done || this.waiting || this.consumer) return false;
    this.consumer = consumer;
    for (const event of this.queued.splice(0)) if (!this.accepted(event)) break;
    return true;
  }

  /** Hands an event to the consumer, the waiting reader, or queues it; cuts the subscription off when the queue is full. */
  offer(event: SessionStatusEvent): void {
    if (this.done || !matchesFilter(event, this.filter)) return;
    if (this.consumer) {
      this.accepted(event);
      return;
    }
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve({ value: event, done: false });
      return;
    }
    if (this.queued.length >= SUBSCRIBER_QUEUE_MAX_EVENTS) {
      // Dropping silently would show the console a wrong status; ending lets the client resync.
      this.failure = new SubscriberTooSlowError();
      this.finish();
      return;
    }
    this.queued.push(event);
  }

  /** Gives `event` to the consumer; when it fell behind, ends the subscription with {@link SubscriberTooSlowError}. */
  private accepted(event: SessionStatusEvent): boolean {
    if (this.consumer!.accept(event)) return true;
    this.failure = new SubscriberTooSlowError();
    this.finish();
    return false;
  }

  next(): Promise<IteratorResult<SessionStatusEvent>> {
    const event = this.queued.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.failure) {
      const failure = this.failure;
      this.failure = null;
      return Promise.reject(failure);
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<SessionStatusEvent>> {
    this.queued.length = 0;
    this.failure = null;
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<SessionStatusEvent>> {
    this.queued.length = 0;
    this.finish();
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Unregisters once and releases a pending reader. */
  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.consumer = null;
    this.unregister(this);
    if (!this.waiting) return;
    const { resolve, reject } = this.waiting;
    this.waiting = null;
    if (this.failure) {
      // The reader is already waiting: it gets the failure now instead of on its next read.
      const failure = this.failure;
      this.failure = null;
      reject(failure);
      return;
    }
    resolve({ value: undefined, done: true });
  }
}

/**
 * Routes committed status changes to the subscriptions of this process, grouped by tenant and
 * environment. It is fed by the fan-out (local commits and, with a PostgreSQL server, other
 * instances' commits) and read by the `sessionStatusChanged` subscription. Emits `subscribers`
 * with the new total whenever a subscription starts or ends (metrics, tests).
 */
export class LiveStatusHub extends EventEmitter<{ subscribers: [number] }> {
  private readonly byScope = new Map<string, Set<SubscriberQueue>>();
  private count = 0;

  /** Open subscriptions in this process. */
  get subscriberCount(): number {
    return this.count;
  }

  /** Delivers one event to the matching subscriptions of its tenant and environment. */
  publish(event: SessionStatusEvent): void {
    const queues = this.byScope.get(scopeKey(event));
    if (!queues) return;
    for (const queue of queues) queue.offer(event);
  }

  /** Opens a subscription limited to `scope`; iterate it (or push it to a consumer), and call `return()` to end it. */
  subscribe(scope: SubscriberScope, filter: SessionStatusFilter = {}): StatusSubscription {
    const key = scopeKey(scope);
    const queue = new SubscriberQueue(filter, (ended) => {
      const queues = this.byScope.get(key);
      if (!queues?.delete(ended)) return;
      if (queues.size === 0) this.byScope.delete(key);
      this.count -= 1;
      this.emit('subscribers', this.count);
    });
    let queues = this.byScope.get(key);
    if (!queues) {
      queues = new Set();
      this.byScope.set(key, queues);
    }
    queues.add(queue);
    this.count += 1;
    this.emit('subscribers', this.count);
    return queue;
  }
}

/**
 * type-graphql refuses to build subscriptions without a `pubSub`, even when each one brings its
 * own `subscribe` function as ours do (they read the per-app {@link LiveStatusHub} from the
 * context, so two apps in one process never share subscribers). This one fails loudly if a
 * topic-based `@Subscription` is ever added by mistake.
 */
export const SUBSCRIBE_FUNCTIONS_ONLY = {
  publish(): void {
    throw new Error('Publish committed events on the EventBus; subscriptions read them from services.live.');
  },
  subscribe(): AsyncIterable<unknown> {
    throw new Error('Give @Subscription a subscribe function reading context.services.live; topics are not supported.');
  },
};
