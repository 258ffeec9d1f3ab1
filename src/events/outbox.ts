import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { OutboxEventSchema, type EventType, type OutboxEvent } from '../../entities/outbox-event.entity.js';

/** An event to record: what happened, to which tenant and environment, with its payload. */
export interface NewEvent {
  tenantId: string;
  /** Only subscribers and webhook destinations of this environment are told. */
  environment: ApiKeyEnvironment;
  type: EventType;
  sessionId?: string | null;
  payload: Record<string, unknown>;
}

/**
 * The events one unit of work records. Rows are persisted by the transaction's flush (the
 * transactional outbox); the batch is published to in-process listeners only after the commit.
 */
export class EventBatch {
  /** Rows recorded so far, in order. */
  readonly events: OutboxEvent[] = [];

  /** Adds an outbox row to the unit of work of `em` (a transaction's EntityManager). */
  record(em: EntityManager, event: NewEvent): OutboxEvent {
    const row = em.create(OutboxEventSchema, {
      id: randomUUID(),
      tenantId: event.tenantId,
      environment: event.environment,
      type: event.type,
      sessionId: event.sessionId ?? null,
      payload: event.payload,
      createdAt: new Date(),
    });
    this.events.push(row);
    return row;
  }
}

/** A committed event as listeners receive it. */
export interface PublishedEvent {
  id: string;
  seq: number;
  tenantId: string;
  environment: ApiKeyEnvironment;
  type: EventType;
  sessionId: string | null;
  payload: Record<string, unknown>;
  createdAt: Date;
  /**
   * True when the event's transaction also recorded its webhook fan-out as done because it had no
   * target (no subscribed active destination, no callback): emitters need not look for it.
   */
  webhooksDone?: boolean;
}

/** In-process fan-out of committed events (subscriptions, the in-process emitter). */
export class EventBus extends EventEmitter<{ event: [PublishedEvent] }> {
  constructor() {
    super();
    // Every subscription adds a listener; thousands are normal.
    this.setMaxListeners(0);
  }

  /** Publishes a committed batch, in order. Call only after the transaction committed. */
  publish(batch: EventBatch): void {
    this.publishEvents(
      batch.events.map((row) => ({
        id: row.id,
        seq: Number(row.seq),
        tenantId: row.tenantId,
        environment: row.environment,
        type: row.type,
        sessionId: row.sessionId ?? null,
        payload: row.payload,
        createdAt: row.createdAt,
      })),
    );
  }

  /** Publishes committed events written without the ORM (the one-statement create path), in order. */
  publishEvents(events: readonly PublishedEvent[]): void {
    for (const event of events) this.emit('event', event);
  }
}

/** Runs `work` in a transaction with an event batch, then publishes the batch after commit. */
export async function transactionWithEvents<T>(
  em: EntityManager,
  bus: EventBus,
  work: (tx: EntityManager, events: EventBatch) => Promise<T>,
): Promise<T> {
  const batch = new EventBatch();
  const result = await em.transactional((tx) => work(tx as EntityManager, batch));
  bus.publish(batch);
  return result;
}
