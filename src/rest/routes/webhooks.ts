import { z } from 'zod';
import { WEBHOOK_ATTEMPT_STATUSES, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_VERSIONS } from '../../../entities/webhook.entity.js';
import {
  CreateWebhookDestinationDocument,
  DeleteWebhookDestinationDocument,
  GetWebhookDeliveryDocument,
  GetWebhookDestinationDocument,
  ListWebhookAttemptsDocument,
  ListWebhookDeliveriesDocument,
  ListWebhookDestinationsDocument,
  ReplayWebhookDeliveryDocument,
  RotateCallbackSecretDocument,
  SendTestWebhookDocument,
  UpdateWebhookDestinationDocument,
  type WebhookAttemptFieldsFragment,
  type WebhookDeliveryFieldsFragment,
  type WebhookDestinationFieldsFragment,
} from '../../graphql/generated/operations.js';
import { DELIVERIES_PAGE_MAX } from '../../webhooks/webhook.service.js';
import { definedFields } from '../../shared/input-rules.js';
import { defineRoute } from '../route.js';

/** The spec's Webhook destination JSON; `events` absent means all events; `secret` only at creation and rotation. */
export const WebhookDestinationJson = z.object({
  uuid: z.string(),
  url: z.string(),
  version: z.enum(WEBHOOK_VERSIONS),
  events: z.array(z.string()).optional(),
  active: z.boolean(),
  secret: z.string().optional(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

/** A delivery as JSON: one event to one destination or session callback. */
export const WebhookDeliveryJson = z.object({
  id: z.string(),
  event_id: z.string().optional(),
  event_type: z.string(),
  session_id: z.string().optional(),
  destination_uuid: z.string().optional(),
  callback_url: z.string().optional(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempt_count: z.number().int(),
  next_attempt_at: z.number().int().optional(),
  last_status_code: z.number().int().optional(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

/** An attempt as JSON. */
export const WebhookAttemptJson = z.object({
  id: z.string(),
  delivery_id: z.string(),
  attempted_at: z.number().int(),
  status: z.enum(WEBHOOK_ATTEMPT_STATUSES),
  response_status_code: z.number().int().optional(),
  duration_ms: z.number().int(),
  error: z.string().optional(),
  response_body: z.string().optional(),
  next_attempt_at: z.number().int().optional(),
});

/** Shapes a destination for REST, with the secret when one was just issued. */
export function presentDestination(
  destination: WebhookDestinationFieldsFragment,
  secret?: string | null,
): z.infer<typeof WebhookDestinationJson> {
  return definedFields({
    uuid: destination.id,
    url: destination.url,
    version: destination.version,
    events: destination.events,
    active: destination.active,
    secret,
    created_at: destination.createdAt,
    updated_at: destination.updatedAt,
  }) as z.infer<typeof WebhookDestinationJson>;
}

/** Shapes a delivery for REST. */
export function presentDelivery(delivery: WebhookDeliveryFieldsFragment): z.infer<typeof WebhookDeliveryJson> {
  return definedFields({
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    session_id: delivery.sessionId,
    destination_uuid: delivery.destinationId,
    callback_url: delivery.callbackUrl,
    status: delivery.status,
    attempt_count: delivery.attemptCount,
    next_attempt_at: delivery.nextAttemptAt,
    last_status_code: delivery.lastStatusCode,
    created_at: delivery.createdAt,
    updated_at: delivery.updatedAt,
  }) as z.infer<typeof WebhookDeliveryJson>;
}

/** Shapes an attempt for REST. */
export function presentAttempt(attempt: WebhookAttemptFieldsFragment): z.infer<typeof WebhookAttemptJson> {
  return definedFields({
    id: attempt.id,
    delivery_id: attempt.deliveryId,
    attempted_at: attempt.attemptedAt,
    status: attempt.status,
    response_status_code: attempt.responseStatusCode,
    duration_ms: attempt.durationMs,
    error: attempt.error,
    response_body: attempt.responseBody,
    next_attempt_at: attempt.nextAttemptAt,
  }) as z.infer<typeof WebhookAttemptJson>;
}

const CreateBody = z
  .object({
    url: z.string(),
    version: z.enum(WEBHOOK_VERSIONS).optional(),
    events: z.array(z.string()).optional(),
  })
  .strict();

const UpdateBody = z
  .object({
    url: z.string().optional(),
    version: z.enum(WEBHOOK_VERSIONS).optional(),
    events: z.array(z.string()).nullable().optional(),
    active: z.boolean().optional(),
    rotate_secret: z.boolean().optional(),
  })
  .strict();

const DestinationParams = z.object({ uuid: z.string().min(1).max(100) });
const DeliveryParams = z.object({ delivery_id: z.string().min(1).max(100) });
const DeliveriesQuery = z
  .object({
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
    limit: z.coerce.number().int().min(1).max(DELIVERIES_PAGE_MAX).optional(),
    cursor: z.string().min(1).max(200).optional(),
  })
  .strict();
const DeliveriesPageJson = z.object({ deliveries: z.array(WebhookDeliveryJson), next_cursor: z.string().optional() });

/** Webhook destination, delivery and callback-secret routes. */
export const webhookRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/webhook-destinations',
    operationId: 'createWebhookDestination',
    summary: 'Registers an HTTPS endpoint for events; the response carries the signing secret, shown only once.',
    tag: 'Webhooks',
    operation: CreateWebhookDestinationDocument,
    body: CreateBody,
    variables: ({ body }) => ({ input: body }),
    status: 201,
    present: (data) => presentDestination(data.createWebhookDestination.destination, data.createWebhookDestination.secret),
    response: WebhookDestinationJson,
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/webhook-destinations',
    operationId: 'listWebhookDestinations',
    summary: "The tenant's destinations; secrets are never returned.",
    tag: 'Webhooks',
    operation: ListWebhookDestinationsDocument,
    variables: () => ({}),
    status: 200,
    present: (data) => ({ webhook_destinations: data.webhookDestinations.map((destination) => presentDestination(destination)) }),
    response: z.object({ webhook_destinations: z.array(WebhookDestinationJson) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/webhook-destinations/:uuid',
    operationId: 'getWebhookDestination',
    summary: 'One destination, without its secret.',
    tag: 'Webhooks',
    operation: GetWebhookDestinationDocument,
    params: DestinationParams,
    variables: ({ params }) => ({ id: params.uuid }),
    status: 200,
    present: (data) => presentDestination(data.webhookDestination),
    response: WebhookDestinationJson,
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/webhook-destinations/:uuid',
    operationId: 'updateWebhookDestination',
    summary: 'Changes url, version, events or active; rotate_secret: true returns a new secret and the old one signs nothing.',
    tag: 'Webhooks',
    operation: UpdateWebhookDestinationDocument,
    params: DestinationParams,
    body: UpdateBody,
    variables: ({ params, body }) => ({
      id: params.uuid,
      input: {
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.version !== undefined ? { version: body.version } : {}),
        ...(body.events !== undefined ? { events: body.events } : {}),
        ...(body.active !== undefined ? { active: body.active } : {}),
        ...(body.rotate_secret !== undefined ? { rotateSecret: body.rotate_secret } : {}),
      },
    }),
    status: 200,
    present: (data) => presentDestination(data.updateWebhookDestination.destination, data.updateWebhookDestination.secret),
    response: WebhookDestinationJson,
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/webhook-destinations/:uuid',
    operationId: 'deleteWebhookDestination',
    summary: 'Deletes a destination and its delivery history. No body.',
    tag: 'Webhooks',
    operation: DeleteWebhookDestinationDocument,
    params: DestinationParams,
    variables: ({ params }) => ({ id: params.uuid }),
    status: 204,
    present: () => undefined,
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/webhook-destinations/:uuid/test',
    operationId: 'sendTestWebhook',
    summary: 'Queues a signed `webhook.test` message to the destination; answers 202 with the delivery.',
    tag: 'Webhooks',
    operation: SendTestWebhookDocument,
    params: DestinationParams,
    variables: ({ params }) => ({ destinationId: params.uuid }),
    status: 202,
    present: (data) => presentDelivery(data.sendTestWebhook),
    response: WebhookDeliveryJson,
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/webhook-destinations/:uuid/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'Deliveries to the destination, newest first (`status`, `limit` up to 100, `cursor`).',
    tag: 'Webhooks',
    operation: ListWebhookDeliveriesDocument,
    params: DestinationParams,
    query: DeliveriesQuery,
    variables: ({ params, query }) => ({ destinationId: params.uuid, ...query }),
    status: 200,
    present: (data) =>
      definedFields({
        deliveries: data.webhookDeliveries.deliveries.map(presentDelivery),
        next_cursor: data.webhookDeliveries.nextCursor,
      }),
    response: DeliveriesPageJson,
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/webhook-deliveries/:delivery_id',
    operationId: 'getWebhookDelivery',
    summary: 'One delivery (its id is the `webhook-id` header).',
    tag: 'Webhooks',
    operation: GetWebhookDeliveryDocument,
    params: DeliveryParams,
    variables: ({ params }) => ({ id: params.delivery_id }),
    status: 200,
    present: (data) => presentDelivery(data.webhookDelivery),
    response: WebhookDeliveryJson,
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/webhook-deliveries/:delivery_id/attempts',
    operationId: 'listWebhookAttempts',
    summary: 'Every HTTP try of a delivery: status, response code, duration, next attempt.',
    tag: 'Webhooks',
    operation: ListWebhookAttemptsDocument,
    params: DeliveryParams,
    variables: ({ params }) => ({ id: params.delivery_id }),
    status: 200,
    present: (data) => ({ attempts: data.webhookDelivery.attempts.map(presentAttempt) }),
    response: z.object({ attempts: z.array(WebhookAttemptJson) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/webhook-deliveries/:delivery_id/replay',
    operationId: 'replayWebhookDelivery',
    summary: 'Sends a delivery again now with the same webhook-id and body; answers 202.',
    tag: 'Webhooks',
    operation: ReplayWebhookDeliveryDocument,
    params: DeliveryParams,
    variables: ({ params }) => ({ id: params.delivery_id }),
    status: 202,
    present: (data) => presentDelivery(data.replayWebhookDelivery),
    response: WebhookDeliveryJson,
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/callback-secret/rotate',
    operationId: 'rotateCallbackSecret',
    summary: 'Replaces the secret that signs per-session callback deliveries; returns it once.',
    tag: 'Webhooks',
    operation: RotateCallbackSecretDocument,
    variables: () => ({}),
    status: 200,
    present: (data) => ({ secret: data.rotateCallbackSecret }),
    response: z.object({ secret: z.string() }),
  }),
];
