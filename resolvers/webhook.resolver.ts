import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { WebhookAttempt, WebhookDelivery, WebhookDeliveryStatus, WebhookDestination } from '../entities/webhook.entity.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { unixSeconds } from '../src/shared/time.js';
import * as webhooks from '../src/webhooks/webhook.service.js';
import { rotateCallbackSecret } from '../src/tenants/callback-secrets.js';
import { CreateWebhookDestinationInput, UpdateWebhookDestinationInput } from './webhook.input.js';
import {
  WebhookAttemptObject,
  WebhookDeliveryObject,
  WebhookDeliveryPage,
  WebhookDeliveryStatusEnum,
  WebhookDestinationObject,
  WebhookDestinationSecretPayload,
} from './webhook.type.js';

/** Shapes a destination row for GraphQL (never the secret). */
export function toDestinationObject(destination: WebhookDestination): WebhookDestinationObject {
  return {
    id: destination.id,
    url: destination.url,
    version: destination.version,
    events: destination.events ?? null,
    active: destination.active,
    createdAt: unixSeconds(destination.createdAt),
    updatedAt: unixSeconds(destination.updatedAt),
  };
}

/**
 * When a pending delivery is tried next: its due time, or while an emitter holds it the end of
 * that lease (when a crashed emitter's delivery goes out again), as when a claim moved the due time.
 */
function nextTryOf(delivery: WebhookDelivery): Date | null {
  if (delivery.status !== 'pending' || !delivery.nextAttemptAt) return null;
  const leaseEnd = delivery.claimedUntil;
  return leaseEnd && leaseEnd > delivery.nextAttemptAt ? leaseEnd : delivery.nextAttemptAt;
}

/** Shapes a delivery row for GraphQL. */
export function toDeliveryObject(delivery: WebhookDelivery): WebhookDeliveryObject {
  const nextTry = nextTryOf(delivery);
  return {
    id: delivery.id,
    eventId: delivery.eventId ?? null,
    eventType: delivery.eventType,
    sessionId: delivery.sessionId ?? null,
    destinationId: delivery.destinationId ?? null,
    callbackUrl: delivery.callbackUrl ?? null,
    status: delivery.status,
    attemptCount: delivery.attemptCount,
    nextAttemptAt: nextTry ? unixSeconds(nextTry) : null,
    lastStatusCode: delivery.lastStatusCode ?? null,
    replayedBy: delivery.replayedBy ?? null,
    replayedAt: delivery.replayedAt ? unixSeconds(delivery.replayedAt) : null,
    createdAt: unixSeconds(delivery.createdAt),
    updatedAt: unixSeconds(delivery.updatedAt),
  };
}

/** Shapes an attempt row for GraphQL. */
export function toAttemptObject(attempt: WebhookAttempt): WebhookAttemptObject {
  return {
    id: attempt.id,
    deliveryId: attempt.deliveryId,
    attemptedAt: unixSeconds(attempt.attemptedAt),
    status: attempt.status,
    responseStatusCode: attempt.statusCode ?? null,
    durationMs: attempt.durationMs,
    error: attempt.error ?? null,
    responseBody: attempt.responseBody ?? null,
    nextAttemptAt: attempt.nextAttemptAt ? unixSeconds(attempt.nextAttemptAt) : null,
  };
}

/** Webhook destinations, their deliveries and attempts, replay and test messages. */
@Resolver(() => WebhookDeliveryObject)
export class WebhookResolver {
  @Query(() => [WebhookDestinationObject], { description: "The tenant's webhook destinations, oldest first; secrets are never listed." })
  async webhookDestinations(@Ctx() context: GraphQLContext): Promise<WebhookDestinationObject[]> {
    const scope = requireTenant(context);
    return (await webhooks.listDestinations(context.em, scope)).map(toDestinationObject);
  }

  @Query(() => WebhookDestinationObject, { description: "One destination; NOT_FOUND when it is another tenant's." })
  async webhookDestination(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<WebhookDestinationObject> {
    const scope = requireTenant(context);
    return toDestinationObject(await webhooks.getDestination(context.em, scope, id));
  }

  @Mutation(() => WebhookDestinationSecretPayload, { description: 'Registers a destination (active); the secret is shown only now.' })
  async createWebhookDestination(
    @Arg('input', () => CreateWebhookDestinationInput) input: CreateWebhookDestinationInput,
    @Ctx() context: GraphQLContext,
  ): Promise<WebhookDestinationSecretPayload> {
    const scope = requireTenant(context);
    const result = await webhooks.createDestination(
      context.em,
      context.services.secrets,
      context.config.DEV_ALLOW_LOOPBACK_WEBHOOKS,
      scope,
      input,
    );
    return { destination: toDestinationObject(result.destination), secret: result.secret };
  }

  @Mutation(() => WebhookDestinationSecretPayload, {
    description: 'Changes a destination; `rotateSecret` returns a new secret, the old one signs nothing.',
  })
  async updateWebhookDestination(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateWebhookDestinationInput) input: UpdateWebhookDestinationInput,
    @Ctx() context: GraphQLContext,
  ): Promise<WebhookDestinationSecretPayload> {
    const scope = requireTenant(context);
    const result = await webhooks.updateDestination(
      context.em,
      context.services.secrets,
      context.config.DEV_ALLOW_LOOPBACK_WEBHOOKS,
      scope,
      id,
      input,
    );
    return { destination: toDestinationObject(result.destination), secret: result.secret };
  }

  @Mutation(() => Boolean, { description: 'Deletes a destination and its delivery history.' })
  async deleteWebhookDestination(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    const scope = requireTenant(context);
    await webhooks.deleteDestination(context.em, scope, id);
    return true;
  }

  @Query(() => WebhookDeliveryPage, { description: "The tenant's deliveries, newest first, by destination, session or status." })
  async webhookDeliveries(
    @Ctx() context: GraphQLContext,
    @Arg('destinationId', () => ID, { nullable: true }) destinationId?: string | null,
    @Arg('sessionId', () => String, { nullable: true }) sessionId?: string | null,
    @Arg('status', () => WebhookDeliveryStatusEnum, { nullable: true }) status?: WebhookDeliveryStatus | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Default 20, at most 100.' }) limit?: number | null,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string | null,
  ): Promise<WebhookDeliveryPage> {
    const scope = requireTenant(context);
    const page = await webhooks.listDeliveries(context.em, scope, { destinationId, sessionId, status, limit, cursor });
    return { deliveries: page.deliveries.map(toDeliveryObject), nextCursor: page.nextCursor };
  }

  @Query(() => WebhookDeliveryObject, { description: "One delivery; NOT_FOUND when it is another tenant's." })
  async webhookDelivery(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<WebhookDeliveryObject> {
    const scope = requireTenant(context);
    return toDeliveryObject(await webhooks.getDelivery(context.em, scope, id));
  }

  @Mutation(() => WebhookDeliveryObject, { description: 'Sends a delivery again now, same webhook-id and body, restarting its schedule.' })
  async replayWebhookDelivery(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<WebhookDeliveryObject> {
    const scope = requireTenant(context);
    return toDeliveryObject(await webhooks.replayDelivery(context.em, context.services, scope, id));
  }

  @Mutation(() => WebhookDeliveryObject, { description: 'Queues a `webhook.test` message to an active destination.' })
  async sendTestWebhook(
    @Arg('destinationId', () => ID) destinationId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<WebhookDeliveryObject> {
    const scope = requireTenant(context);
    return toDeliveryObject(await webhooks.sendTestEvent(context.em, context.services, scope, destinationId));
  }

  @Mutation(() => String, {
    description:
      "Replaces the secret that signs per-session callback deliveries of the key's environment (the other keeps its own); returned only now.",
  })
  async rotateCallbackSecret(@Ctx() context: GraphQLContext): Promise<string> {
    const { tenantId, environment } = requireTenant(context);
    return rotateCallbackSecret(context.em, context.services.secrets, tenantId, environment);
  }

  @FieldResolver(() => [WebhookAttemptObject], { description: 'Every HTTP try, oldest first.' })
  async attempts(@Root() delivery: WebhookDeliveryObject, @Ctx() context: GraphQLContext): Promise<WebhookAttemptObject[]> {
    return (await context.loaders.attemptsByDeliveryId.load(delivery.id)).map(toAttemptObject);
  }

  @FieldResolver(() => WebhookDestinationObject, { nullable: true, description: 'The destination; null for a session callback.' })
  async destination(@Root() delivery: WebhookDeliveryObject, @Ctx() context: GraphQLContext): Promise<WebhookDestinationObject | null> {
    if (!delivery.destinationId) return null;
    const destination = await context.loaders.destinationById.load(delivery.destinationId);
    return destination ? toDestinationObject(destination) : null;
  }
}
