import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { SessionStatusChangeSchema, type SessionStatusChange } from '../../entities/session.entity.js';
import { WebhookDestinationSchema, type WebhookAttempt, type WebhookDestination } from '../../entities/webhook.entity.js';
import { WorkflowSchema, type Workflow } from '../../entities/workflow.entity.js';
import { attemptsByDeliveryIds } from '../webhooks/webhook.service.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { currentTokens } from '../sessions/service-tokens.js';
import { readNodeResults, type NodeResultRecord } from '../sessions/session-record.js';
import { listEvidence, type EvidenceItem } from '../evidence/evidence.service.js';
import { listNotes, type SessionNote } from '../sessions/note.service.js';
import { listClaims, type SessionClaim } from '../sessions/claims.js';
import { operatorsWithTotp } from '../operators/totp.service.js';

/** The DataLoaders of one request: nested fields load in one query per kind, whatever the page size. */
export interface Loaders {
  /** Workflows by id (built-ins and custom alike; callers already scoped the session). */
  workflowById: DataLoader<string, Workflow | null>;
  /** Node results of each session, in workflow-independent node type order. */
  nodeResultsBySessionId: DataLoader<string, NodeResultRecord[]>;
  /** Status history of each session, oldest first. */
  statusChangesBySessionId: DataLoader<string, SessionStatusChange[]>;
  /** The current (unrevoked) service token of each session, decrypted, or null. */
  serviceTokenBySessionId: DataLoader<string, string | null>;
  /** Evidence kept for each session (metadata only), oldest first. */
  evidenceBySessionId: DataLoader<string, EvidenceItem[]>;
  /** Notes on each session, oldest first. */
  notesBySessionId: DataLoader<string, SessionNote[]>;
  /** Attempts of each webhook delivery, oldest first (callers already scoped the delivery). */
  attemptsByDeliveryId: DataLoader<string, WebhookAttempt[]>;
  /** Webhook destinations by id (callers already scoped the delivery that names one). */
  destinationById: DataLoader<string, WebhookDestination | null>;
  /** Who holds each in-review case, if anyone. */
  claimBySessionId: DataLoader<string, SessionClaim | null>;
  /** Whether each operator has a confirmed second factor. */
  totpEnabledByOperatorId: DataLoader<string, boolean>;
}

/** Groups rows by a key, returning one array per requested key in key order. */
function groupInKeyOrder<T>(keys: readonly string[], rows: T[], keyOf: (row: T) => string): T[][] {
  const groups = new Map<string, T[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((key) => groups.get(key) ?? []);
}

/** Creates the loaders of one request over its EntityManager. */
export function createLoaders(em: EntityManager, secrets: ServiceSecrets): Loaders {
  return {
    workflowById: new DataLoader(async (ids) => {
      const rows = await em.find(WorkflowSchema, { id: { $in: [...ids] } });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    nodeResultsBySessionId: new DataLoader(async (sessionIds) =>
      groupInKeyOrder(sessionIds, await readNodeResults(em, sessionIds), (row) => row.sessionId),
    ),
    statusChangesBySessionId: new DataLoader(async (sessionIds) => {
      const rows = await em.find(
        SessionStatusChangeSchema,
        { sessionId: { $in: [...sessionIds] } },
        { orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      return groupInKeyOrder(sessionIds, rows, (row) => row.sessionId);
    }),
    serviceTokenBySessionId: new DataLoader(async (sessionIds) => {
      const current = await currentTokens(em, secrets, sessionIds);
      return sessionIds.map((id) => current.get(id) ?? null);
    }),
    evidenceBySessionId: new DataLoader(async (sessionIds) =>
      groupInKeyOrder(sessionIds, await listEvidence(em, sessionIds), (row) => row.sessionId),
    ),
    notesBySessionId: new DataLoader(async (sessionIds) =>
      groupInKeyOrder(sessionIds, await listNotes(em, sessionIds), (row) => row.sessionId),
    ),
    attemptsByDeliveryId: new DataLoader(async (deliveryIds) => {
      const byDelivery = await attemptsByDeliveryIds(em, deliveryIds);
      return deliveryIds.map((id) => byDelivery.get(id) ?? []);
    }),
    destinationById: new DataLoader(async (ids) => {
      const rows = await em.find(WebhookDestinationSchema, { id: { $in: [...ids] } });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    claimBySessionId: new DataLoader(async (sessionIds) =>
      groupInKeyOrder(sessionIds, await listClaims(em, sessionIds), (row) => row.sessionId).map((claims) => claims[0] ?? null),
    ),
    totpEnabledByOperatorId: new DataLoader(async (operatorIds) => {
      const enrolled = new Set(await operatorsWithTotp(em, operatorIds));
      return operatorIds.map((id) => enrolled.has(id));
    }),
  };
}
