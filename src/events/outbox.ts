import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { OutboxEventSchema, type OutboxEvent } from '../../entities/outbox-event.entity.js';
import { storedEvent, type DomainEvent } from '../domain/events.js';
import type { SessionStatus } from '../domain/types.js';
import { currentTraceCarrier } from '../observability/tracing.js';

/** An event to record: what happened (made by a constructor of src/domain/events.ts), to which tenant and environment. */
export type NewEvent = {
  tenantId: string;
  /** Only subscribers and webhook destinations of this environment are told. */
  environment: ApiKeyEnvironment;
  sessionId?: string | null;
} & DomainEvent;

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
      snapshot: null,
      traceContext: currentTraceCarrier() ?? null,
      createdAt: new Date(),
    });
    this.events.push(row);
    return row;
  }
}

/** A committed event as listeners receive it. */
export type PublishedEvent = {
  id: string;
  seq: number;
  tenantId: string;
  environment: ApiKeyEnvironment;
  sessionId: string | null;
  createdAt: Date;
  /**
   * True when the event's transaction also recorded its webhook fan-out as done because it had no
   * target (no subscribed active destination, no callback): emitters need not look for it.
   */
  webhooksDone?: boolean;
} & DomainEvent;

/** A session's status change that needs a decision snapshot. */
export interface SnapshotRequest {
  sessionId: string;
  /** The status the change moved the session to: the snapshot is the decision as of it. */
  status: SessionStatus;
}

/**
 * What takes a decision snapshot for each status change before its transaction commits
 * (implemented by the sessions module, which knows what a decision is): reads the sessions'
 * decisions in the transaction and seals each as of its change's status (it may hold a service token).
 */
export interface DecisionSnapshotter {
  /** One sealed snapshot per request, in order; null for a session the transaction cannot see. */
  snapshots(tx: EntityManager, requests: readonly SnapshotRequest[]): Promise<(string | null)[]>;
}

/** In-process fan-out of committed events (subscriptions, the in-process emitter). */
export class EventBus extends EventEmitter<{ event: [PublishedEvent] }> {
  /** Set by the composition root; without it status changes keep no snapshot (webhooks read the session when sent). */
  snapshotter: DecisionSnapshotter | null = null;

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
        sessionId: row.sessionId ?? null,
        createdAt: row.createdAt,
        ...storedEvent(row.type, row.payload),
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
  const result = await em.transactional(async (tx) => {
    const done = await work(tx as EntityManager, batch);
    await snapshotStatusChanges(tx as EntityManager, batch, bus.snapshotter);
    return done;
  });
  bus.publish(batch);
  return result;
}

/**
 * Gives each `session.status_changed` of the batch the session's decision as of its new status,
 * read in the transaction before it commits: a webhook sent later (a retry, a slow emitter) carries
 * the state of the moment, not a later verdict.
 */
async function snapshotStatusChanges(tx: EntityManager, batch: EventBatch, snapshotter: DecisionSnapshotter | null): Promise<void> {
  if (!snapshotter) return;
  const changes: { row: OutboxEvent; request: SnapshotRequest }[] = [];
  for (const row of batch.events) {
    const event = storedEvent(row.type, row.payload);
    if (event.type === 'session.status_changed' && row.sessionId && row.snapshot == null)
      changes.push({ row, request: { sessionId: row.sessionId, status: event.payload.status } });
  }
  if (changes.length === 0) return;
  await tx.flush();
  const sealed = await snapshotter.snapshots(
    tx,
    changes.map((change) => change.request),
  );
  changes.forEach((change, index) => (change.row.snapshot = sealed[index] ?? null));
}
