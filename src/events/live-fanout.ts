import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { Logger } from 'pino';
import { toSessionStatusEvent, type LiveStatusHub } from './live-status.js';
import type { EventBus, PublishedEvent } from './outbox.js';
import { storedEvent, type DomainEvent, type EventPayload, type EventType } from '../domain/events.js';

/** PostgreSQL channel committed status changes are announced on (by the outbox trigger, in their transaction). */
export const EVENTS_CHANNEL = 'idv_events';
/**
 * Largest NOTIFY payload sent whole, in bytes (PostgreSQL's limit is 8000); bigger events go as
 * their id. The trigger of Migration20261127000200H28AnnounceOnCommit applies it.
 */
export const NOTIFY_PAYLOAD_MAX_BYTES = 7500;
/** How many recent event ids an instance remembers to deliver each event once. */
export const RECENT_EVENT_IDS_MAX = 10_000;
/** First delay before reconnecting a lost LISTEN connection, in milliseconds; doubles up to the max. */
export const LISTEN_RECONNECT_MIN_MS = 100;
/** Longest delay between reconnect attempts, in milliseconds. */
export const LISTEN_RECONNECT_MAX_MS = 5_000;
/** Most missed events read back from the outbox after a reconnect. */
export const CATCH_UP_MAX_EVENTS = 1_000;

/**
 * What the outbox trigger sends on {@link EVENTS_CHANNEL} when a status change commits: the event,
 * or (when too big) only its id. The instance that committed it receives it too and drops it as
 * already delivered from its bus (or delivers it from here first: whichever comes first).
 */
interface Announcement {
  /** The event, when it fits in a NOTIFY payload. */
  e?: {
    id: string;
    seq: number;
    tenantId: string;
    environment: PublishedEvent['environment'];
    sessionId: string | null;
    createdAt: string;
  } & DomainEvent;
  /** The event id, when the event is read from the outbox instead. */
  id?: string;
}

/** Options for {@link startEventFanout}. */
export interface FanoutOptions {
  /** This process's bus of committed events. */
  bus: EventBus;
  /** Where events are delivered to this process's subscribers. */
  hub: LiveStatusHub;
  /** A PostgreSQL server URL to LISTEN/NOTIFY on; null in embedded mode (in-process only). */
  databaseUrl: string | null;
  logger: Logger;
}

/** The running fan-out. */
export interface EventFanout {
  /** `postgres` when instances share events through LISTEN/NOTIFY; `in_process` in embedded mode. */
  mode: 'postgres' | 'in_process';
  /** This instance's id in announcements. */
  instanceId: string;
  /** Stops listening and detaches from the bus. */
  stop(): Promise<void>;
}

/** A bounded set of recently delivered event ids, oldest evicted first (`has` does not refresh an id). */
class RecentIds {
  private readonly ids = new LRUCache<string, true>({ max: RECENT_EVENT_IDS_MAX });

  /** Remembers `id`; false when it was already delivered. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.set(id, true);
    return true;
  }
}

/** An outbox row as read back by id. */
interface OutboxRow {
  id: string;
  seq: string;
  tenant_id: string;
  environment: PublishedEvent['environment'];
  type: EventType;
  session_id: string | null;
  payload: EventPayload;
  created_at: Date;
}

/** Columns of {@link OutboxRow}. */
const OUTBOX_COLUMNS = 'id, seq, tenant_id, environment, type, session_id, payload, created_at';

/** Converts an outbox row to the event shape listeners use. */
function fromRow(row: OutboxRow): PublishedEvent {
  return {
    id: row.id,
    seq: Number(row.seq),
    tenantId: row.tenant_id,
    environment: row.environment,
    sessionId: row.session_id,
    ...storedEvent(row.type, row.payload),
    createdAt: new Date(row.created_at),
  };
}

/**
 * Feeds this process's subscription hub with committed status changes: its own (from the bus,
 * published after commit) and, with a PostgreSQL server, every instance's (announced by the
 * outbox trigger with NOTIFY in the committing transaction, so a change that commits is always
 * announced, even by a server killed the next instant; received on a dedicated LISTEN
 * connection). Each event is delivered once per instance, by id. Embedded PGlite shares no NOTIFY across its socket, so there the
 * fan-out is in-process only. A lost LISTEN connection is reconnected with backoff, and the
 * status changes committed meanwhile are read back from the outbox.
 */
export async function startEventFanout(options: FanoutOptions): Promise<EventFanout> {
  const { bus, hub, databaseUrl, logger } = options;
  const instanceId = randomUUID();
  const recent = new RecentIds();
  /** Highest outbox seq delivered, for the catch-up after a reconnect. */
  let lastSeq = 0;

  const deliver = (event: PublishedEvent): void => {
    const status = toSessionStatusEvent(event);
    if (!status || !recent.add(event.id)) return;
    lastSeq = Math.max(lastSeq, event.seq);
    hub.publish(status);
  };

  if (!databaseUrl) {
    bus.on('event', deliver);
    return {
      mode: 'in_process',
      instanceId,
      async stop() {
        bus.off('event', deliver);
      },
    };
  }

  let client: pg.Client | null = null;
  let stopped = false;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let reconnectDelayMs = LISTEN_RECONNECT_MIN_MS;
  /** Remote events are handled one at a time, so a read-back by id cannot reorder them. */
  let remoteChain: Promise<void> = Promise.resolve();

  const readById = async (id: string): Promise<PublishedEvent | null> => {
    const result = await client?.query<OutboxRow>(`select ${OUTBOX_COLUMNS} from outbox_event where id = $1`, [id]);
    const row = result?.rows[0];
    return row ? fromRow(row) : null;
  };

  const onNotification = (message: pg.Notification): void => {
    if (message.channel !== EVENTS_CHANNEL || !message.payload) return;
    let announcement: Announcement;
    try {
      announcement = JSON.parse(message.payload) as Announcement;
    } catch {
      logger.warn({ channel: message.channel }, 'ignored a malformed event announcement');
      return;
    }
    remoteChain = remoteChain
      .then(async () => {
        if (announcement.e) return deliver({ ...announcement.e, createdAt: new Date(announcement.e.createdAt) });
        if (!announcement.id) return;
        const event = await readById(announcement.id);
        if (event) deliver(event);
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not deliver an announced event'));
  };

  /** Reads back the status changes committed while the LISTEN connection was down. */
  const catchUp = async (listener: pg.Client): Promise<void> => {
    if (lastSeq === 0) return;
    const result = await listener.query<OutboxRow>(
      `select ${OUTBOX_COLUMNS} from outbox_event where seq > $1 and type = 'session.status_changed' order by seq limit ${CATCH_UP_MAX_EVENTS}`,
      [lastSeq],
    );
    for (const row of result.rows) deliver(fromRow(row));
  };

  const scheduleReconnect = (): void => {
    if (stopped || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect(true).catch((error: unknown) => {
        logger.warn({ err: error, retryInMs: reconnectDelayMs }, 'event LISTEN reconnect failed');
        scheduleReconnect();
      });
    }, reconnectDelayMs);
    reconnectTimer.unref();
    reconnectDelayMs = Math.min(reconnectDelayMs * 2, LISTEN_RECONNECT_MAX_MS);
  };

  const connect = async (reconnecting: boolean): Promise<void> => {
    const listener = new pg.Client({ connectionString: databaseUrl, application_name: `idv-events-${instanceId.slice(0, 8)}` });
    const lost = (error?: Error): void => {
      if (client !== listener) return;
      client = null;
      listener.removeAllListeners('notification');
      listener.end().catch(() => undefined);
      if (stopped) return;
      logger.warn({ err: error }, 'event LISTEN connection lost; reconnecting');
      scheduleReconnect();
    };
    listener.on('error', lost);
    listener.on('end', () => lost());
    try {
      await listener.connect();
      await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      listener.removeAllListeners();
      listener.on('error', () => undefined);
      await listener.end().catch(() => undefined);
      throw error;
    }
    if (stopped) {
      await listener.end().catch(() => undefined);
      return;
    }
    listener.on('notification', onNotification);
    client = listener;
    reconnectDelayMs = LISTEN_RECONNECT_MIN_MS;
    if (reconnecting) {
      logger.info('event LISTEN connection restored');
      remoteChain = remoteChain
        .then(() => catchUp(listener))
        .catch((error: unknown) => logger.warn({ err: error }, 'event catch-up failed'));
    }
  };

  await connect(false);
  bus.on('event', deliver);
  return {
    mode: 'postgres',
    instanceId,
    async stop() {
      stopped = true;
      bus.off('event', deliver);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}
