import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { EVENT_TYPES } from '../domain/events.js';
import {
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_VERSIONS,
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookDestinationSchema,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
  type WebhookDestination,
} from '../../entities/webhook.entity.js';
import { generateSigningSecret } from '../auth/api-keys.js';
import type { TenantPrincipal, TenantScope } from '../auth/context.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { assertPageSize, decodeKeysetCursor, encodeKeysetCursor, olderThan } from '../shared/pagination.js';
import { ApiError, notFound } from '../shared/errors.js';
import { givenOr, isUuid, notGiven, type Unchecked } from '../shared/input-rules.js';
import { parseOrThrow } from '../shared/validation.js';
import type { Services } from '../services.js';
import { buildTestBody, TEST_EVENT_TYPE } from './payloads.js';
import { webhookUrlProblem } from './ssrf.js';

/** Longest destination URL accepted, in characters. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** Most deliveries one page lists. */
export const DELIVERIES_PAGE_MAX = 100;
/** Deliveries per page when the caller gives no limit. */
export const DELIVERIES_PAGE_DEFAULT = 20;

/** The url field, checked for scheme and address class (see {@link webhookUrlProblem}). */
function urlField(allowLoopback: boolean) {
  return z
    .string()
    .min(1, 'url must not be empty')
    .max(WEBHOOK_URL_MAX_LENGTH)
    .superRefine((url, ctx) => {
      const problem = webhookUrlProblem(url, allowLoopback);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}

/** A subscription: one or more known event kinds, each once. */
const EventsField = z
  .array(z.enum(EVENT_TYPES, { message: `events must be among: ${EVENT_TYPES.join(', ')}` }))
  .min(1, 'events must name at least one event kind; omit it to receive all')
  .transform((events) => [...new Set(events)]);

/** Input of createWebhookDestination (GraphQL's camelCase input; REST maps its body to it). */
export function createDestinationInputSchema(allowLoopback: boolean) {
  return z
    .object({
      url: urlField(allowLoopback),
      version: givenOr(z.enum(WEBHOOK_VERSIONS), 'v3'),
      events: notGiven(EventsField),
    })
    .strict();
}

/** Input of updateWebhookDestination: every field optional, at least one given; `events: null` subscribes to all. */
export function updateDestinationInputSchema(allowLoopback: boolean) {
  return z
    .object({
      url: notGiven(urlField(allowLoopback)),
      version: notGiven(z.enum(WEBHOOK_VERSIONS)),
      // Here null is a value: "every event kind", unlike an absent events field.
      events: EventsField.nullable().optional(),
      active: notGiven(z.boolean()),
      rotateSecret: notGiven(z.boolean()),
    })
    .strict()
    .refine((input) => Object.values(input).some((value) => value !== undefined), { message: 'give at least one field to change' });
}

/** What createDestination accepts before validation: GraphQL's `CreateWebhookDestinationInput` as is. */
export type CreateDestinationInput = Unchecked<z.input<ReturnType<typeof createDestinationInputSchema>>>;
/** What updateDestination accepts before validation: GraphQL's `UpdateWebhookDestinationInput` as is. */
export type UpdateDestinationInput = Unchecked<z.input<ReturnType<typeof updateDestinationInputSchema>>>;

/** A destination with the secret that is shown only now (creation, rotation). */
export interface DestinationWithSecret {
  destination: WebhookDestination;
  /** `whsec_…`; null when the secret did not change. */
  secret: string | null;
}

/** Loads a destination of the scope; another tenant's or environment's (or a malformed id) is a 404. */
export async function getDestination(em: EntityManager, scope: TenantScope, id: string): Promise<WebhookDestination> {
  const destination = isUuid(id)
    ? await em.findOne(WebhookDestinationSchema, { id, tenant: scope.tenantId, environment: scope.environment })
    : null;
  if (!destination) throw notFound('Webhook destination');
  return destination;
}

/** The destinations of the tenant's environment, oldest first. */
export async function listDestinations(em: EntityManager, scope: TenantScope): Promise<WebhookDestination[]> {
  return em.find(
    WebhookDestinationSchema,
    { tenant: scope.tenantId, environment: scope.environment },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
}

/** Registers a destination for the scope's environment; active at creation; the secret is returned once. */
export async function createDestination(
  em: EntityManager,
  secrets: ServiceSecrets,
  allowLoopback: boolean,
  scope: TenantScope,
  input: CreateDestinationInput,
): Promise<DestinationWithSecret> {
  const parsed = parseOrThrow(createDestinationInputSchema(allowLoopback), input);
  const secret = generateSigningSecret();
  const destination = em.create(WebhookDestinationSchema, {
    id: randomUUID(),
    tenant: scope.tenantId,
    environment: scope.environment,
    url: parsed.url,
    version: parsed.version,
    events: parsed.events ?? null,
    active: true,
    secretEncrypted: secrets.encrypt(secret),
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  await em.flush();
  return { destination, secret };
}

/** Changes a destination; `rotateSecret: true` returns a new secret and the old one signs nothing from now on. */
export async function updateDestination(
  em: EntityManager,
  secrets: ServiceSecrets,
  allowLoopback: boolean,
  scope: TenantScope,
  id: string,
  input: UpdateDestinationInput,
): Promise<DestinationWithSecret> {
  const destination = await getDestination(em, scope, id);
  const parsed = parseOrThrow(updateDestinationInputSchema(allowLoopback), input);
  if (parsed.url !== undefined) destination.url = parsed.url;
  if (parsed.version !== undefined) destination.version = parsed.version;
  if (parsed.events !== undefined) destination.events = parsed.events;
  if (parsed.active !== undefined) destination.active = parsed.active;
  let secret: string | null = null;
  // The emitter decrypts the secret at every attempt, so retries of older messages are signed with the new one too.
  if (parsed.rotateSecret) {
    secret = generateSigningSecret();
    destination.secretEncrypted = secrets.encrypt(secret);
  }
  destination.updatedAt = new Date();
  await em.flush();
  return { destination, secret };
}

/** Deletes a destination and its delivery history. */
export async function deleteDestination(em: EntityManager, scope: TenantScope, id: string): Promise<void> {
  const destination = await getDestination(em, scope, id);
  await em.nativeDelete(WebhookDestinationSchema, { id: destination.id });
}

/** Which deliveries to list. */
export interface DeliveryFilter {
  destinationId?: string | null;
  sessionId?: string | null;
  status?: WebhookDeliveryStatus | null;
  /** Page size; default 20, at most 100. */
  limit?: number | null;
  /** Opaque cursor from the previous page's `nextCursor`. */
  cursor?: string | null;
}

/** A page of deliveries, newest first. */
export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** Lists the deliveries of the tenant's environment, newest first, by destination, session or status. */
export async function listDeliveries(em: EntityManager, scope: TenantScope, filter: DeliveryFilter): Promise<DeliveryPage> {
  const limit = filter.limit ?? DELIVERIES_PAGE_DEFAULT;
  assertPageSize(limit, DELIVERIES_PAGE_MAX, 'limit');
  if (filter.destinationId) await getDestination(em, scope, filter.destinationId);
  if (filter.sessionId && !isUuid(filter.sessionId)) return { deliveries: [], nextCursor: null };
  if (filter.status && !(WEBHOOK_DELIVERY_STATUSES as readonly string[]).includes(filter.status))
    throw new ApiError('validation_failed', 'Unknown status.', [{ field: 'status', code: 'invalid', message: 'unknown delivery status' }]);
  const where: Record<string, unknown> = { tenantId: scope.tenantId, environment: scope.environment };
  if (filter.destinationId) where.destinationId = filter.destinationId;
  if (filter.sessionId) where.sessionId = filter.sessionId;
  if (filter.status) where.status = filter.status;
  if (filter.cursor) Object.assign(where, olderThan(decodeKeysetCursor(filter.cursor, 'cursor')));
  const rows = await em.find(WebhookDeliverySchema, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: limit + 1 });
  const deliveries = rows.slice(0, limit);
  const last = deliveries.at(-1);
  return { deliveries, nextCursor: rows.length > limit && last ? encodeKeysetCursor(last) : null };
}

/** One delivery of the scope; another tenant's or environment's is a 404. */
export async function getDelivery(em: EntityManager, scope: TenantScope, id: string): Promise<WebhookDelivery> {
  const delivery = isUuid(id)
    ? await em.findOne(WebhookDeliverySchema, { id, tenantId: scope.tenantId, environment: scope.environment })
    : null;
  if (!delivery) throw notFound('Webhook delivery');
  return delivery;
}

/** Attempts of several deliveries in one query (DataLoader batch), keyed by delivery id. */
export async function attemptsByDeliveryIds(em: EntityManager, deliveryIds: readonly string[]): Promise<Map<string, WebhookAttempt[]>> {
  const rows = await em.find(
    WebhookAttemptSchema,
    { deliveryId: { $in: [...deliveryIds] } },
    { orderBy: { attemptedAt: 'asc', id: 'asc' } },
  );
  const byDelivery = new Map<string, WebhookAttempt[]>(deliveryIds.map((id) => [id, []]));
  for (const row of rows) byDelivery.get(row.deliveryId)?.push(row);
  return byDelivery;
}

/**
 * Sends a delivery again, at once, with the same `webhook-id` and body, restarting its retry
 * schedule, and records who asked (the operator's name or the key). A destination that is
 * inactive cannot receive: 409.
 */
export async function replayDelivery(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  id: string,
): Promise<WebhookDelivery> {
  const delivery = await getDelivery(em, principal, id);
  if (delivery.destinationId) {
    const destination = await em.findOne(WebhookDestinationSchema, { id: delivery.destinationId, environment: delivery.environment });
    if (!destination?.active) throw new ApiError('conflict', 'The destination is inactive; activate it before replaying.');
  }
  delivery.status = 'pending';
  delivery.schedulePosition = 0;
  delivery.nextAttemptAt = new Date();
  // At once even while an emitter holds it, as before: the replay does not wait for that lease.
  delivery.claimedUntil = null;
  delivery.updatedAt = new Date();
  delivery.replayedBy = principal.kind === 'operator' ? principal.operatorName : `api_key:${principal.apiKeyId}`;
  delivery.replayedAt = new Date();
  await em.flush();
  services.wakeEmitter();
  return delivery;
}

/** Queues a `webhook.test` message to one active destination, in its payload version. */
export async function sendTestEvent(
  em: EntityManager,
  services: Services,
  scope: TenantScope,
  destinationId: string,
): Promise<WebhookDelivery> {
  const destination = await getDestination(em, scope, destinationId);
  if (!destination.active) throw new ApiError('conflict', 'The destination is inactive; activate it before testing.');
  const now = new Date();
  const delivery = em.create(WebhookDeliverySchema, {
    id: randomUUID(),
    tenantId: scope.tenantId,
    environment: scope.environment,
    eventId: null,
    eventType: TEST_EVENT_TYPE,
    sessionId: null,
    destinationId: destination.id,
    callbackUrl: null,
    target: destination.id,
    // Sealed at rest like every delivery body; the emitter opens it only to sign and send.
    body: services.secrets.encrypt(buildTestBody(destination.version, destination.id, destination.environment, now)),
    status: 'pending',
    attemptCount: 0,
    schedulePosition: 0,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  });
  await em.flush();
  services.wakeEmitter();
  return delivery;
}
