import { once } from 'node:events';
import type { Client } from 'graphql-ws';
import type { LiveStatusHub } from '../../src/events/live-status.js';

/** The subscription every events test opens, selecting every field. */
export const SESSION_STATUS_CHANGED = /* GraphQL */ `
  subscription ($filter: SessionStatusSubscriptionFilter) {
    sessionStatusChanged(filter: $filter) {
      id
      sessionId
      workflowId
      vendorData
      environment
      status
      previousStatus
      actor
      reason
      changedAt
    }
  }
`;

/** One event as a subscriber receives it. */
export interface ReceivedEvent {
  id: string;
  sessionId: string;
  workflowId: string;
  vendorData: string;
  environment: string;
  status: string;
  previousStatus: string | null;
  actor: string;
  reason: string | null;
  changedAt: number;
}

/** A running subscription that records what it receives. */
export interface RecordedSubscription {
  /** Everything received so far, in order. */
  events: ReceivedEvent[];
  /** Resolves with the first `count` events once that many arrived; rejects on a subscription error. */
  take(count: number): Promise<ReceivedEvent[]>;
  /** Sends `complete` for this subscription. */
  unsubscribe(): void;
}

/** Subscribes to `sessionStatusChanged` on `client` and records every event. */
export function recordStatusEvents(client: Client, filter?: Record<string, unknown>): RecordedSubscription {
  const events: ReceivedEvent[] = [];
  const waiters: { count: number; resolve: (events: ReceivedEvent[]) => void; reject: (error: unknown) => void }[] = [];
  let failure: unknown = null;
  const settle = (): void => {
    for (const waiter of [...waiters]) {
      if (failure) waiter.reject(failure);
      else if (events.length >= waiter.count) waiter.resolve(events.slice(0, waiter.count));
      else continue;
      waiters.splice(waiters.indexOf(waiter), 1);
    }
  };
  const unsubscribe = client.subscribe<{ sessionStatusChanged: ReceivedEvent }>(
    { query: SESSION_STATUS_CHANGED, variables: filter ? { filter } : {} },
    {
      next(result) {
        if (result.errors) failure = new Error(JSON.stringify(result.errors));
        else if (result.data) events.push(result.data.sessionStatusChanged);
        settle();
      },
      error(error) {
        failure = error instanceof Error ? error : new Error(JSON.stringify(error));
        settle();
      },
      complete() {},
    },
  );
  return {
    events,
    take(count) {
      return new Promise((resolve, reject) => {
        waiters.push({ count, resolve, reject });
        settle();
      });
    },
    unsubscribe,
  };
}

/** Resolves once the hub holds exactly `count` subscriptions (the server registered them). */
export async function waitForSubscribers(hub: LiveStatusHub, count: number): Promise<void> {
  while (hub.subscriberCount !== count) await once(hub, 'subscribers');
}

/** The status transitions of events, for compact assertions: `from→to`. */
export function transitions(events: ReceivedEvent[]): string[] {
  return events.map((event) => `${event.previousStatus ?? 'null'}→${event.status}`);
}
