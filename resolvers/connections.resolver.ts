import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, ID, Info, Int, Query, Resolver } from 'type-graphql';
import type { ApiKey } from '../entities/api-key.entity.js';
import type { WebhookDeliveryStatus } from '../entities/webhook.entity.js';
import * as connections from '../src/dashboard/connections.service.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { summarise } from '../src/operators/operator.service.js';
import { lastKeyUses } from '../src/tenants/api-key-usage.service.js';
import type { KeyUse } from '../src/auth/key-usage.js';
import { sessionRecordOf } from '../src/sessions/session-record.js';
import { unixSeconds } from '../src/shared/time.js';
import { listDeliveries } from '../src/webhooks/webhook.service.js';
import { selectsTotalCount, toConnectionPage } from './connection.js';
import {
  ApiKeyConnection,
  type ApiKeyObject,
  ListEntryConnection,
  OperatorConnection,
  ReviewQueueConnection,
  SessionNoteConnection,
  StatusChangeConnection,
  WebhookDeliveryConnection,
  WebhookDestinationConnection,
} from './connections.type.js';
import { toListEntryObject } from './list.resolver.js';
import { toOperatorObject } from './operator.resolver.js';
import { toNoteObject, toSessionObject, toStatusChangeObject } from './session.resolver.js';
import { toDeliveryObject, toDestinationObject } from './webhook.resolver.js';
import { WebhookDeliveryStatusEnum } from './webhook.type.js';

const FIRST_DESCRIPTION = `Page size, 1–${connections.DASHBOARD_PAGE_MAX}; default ${connections.DASHBOARD_PAGE_DEFAULT}.`;
const AFTER_DESCRIPTION = 'The `endCursor` of the previous page; absent for the first page.';

/** Shapes an API key row for GraphQL (never its hash), with its last use when known. */
function toApiKeyObject(key: ApiKey, use?: KeyUse): ApiKeyObject {
  return {
    lastUsedAt: use ? unixSeconds(use.at) : null,
    lastUsedAddress: use?.address ?? null,
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    environment: key.environment,
    createdAt: unixSeconds(key.createdAt),
    revokedAt: key.revokedAt ? unixSeconds(key.revokedAt) : null,
  };
}

/** The position of a row in a listing ordered by creation. */
const byCreation = (row: { createdAt: Date; id: string }) => row;

/**
 * The Relay connections dashboards page through (docs/console.md, "Queries for dashboards"): the
 * review queue, a session's timeline and notes, list entries, webhook destinations and the
 * delivery log, operators and API keys. Nested fields load through the request's DataLoaders.
 */
@Resolver()
export class ConnectionsResolver {
  @Query(() => ReviewQueueConnection, {
    description:
      'The in-review sessions of the calling tenant and environment, longest waiting first; the `reviewQueue` subscription streams what changes after.',
  })
  async reviewQueueSessions(
    @Ctx() context: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('first', () => Int, { nullable: true, description: FIRST_DESCRIPTION }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after?: string | null,
  ): Promise<ReviewQueueConnection> {
    const page = await connections.reviewQueuePage(context.em, requireTenant(context), { first, after, count: selectsTotalCount(info) });
    return toConnectionPage(page, byCreation, (session) => toSessionObject(sessionRecordOf(session), context), after, page.totalCount);
  }

  @Query(() => StatusChangeConnection, {
    description: "A session's audit trail (every status change, its actor and reason), oldest first; NOT_FOUND outside the caller's scope.",
  })
  async sessionTimeline(
    @Arg('sessionId', () => String) sessionId: string,
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: FIRST_DESCRIPTION }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after?: string | null,
  ): Promise<StatusChangeConnection> {
    const page = await connections.timelinePage(context.em, context.services, requireTenant(context), sessionId, { first, after });
    return toConnectionPage(page, byCreation, toStatusChangeObject, after, page.totalCount);
  }

  @Query(() => SessionNoteConnection, {
    description: "A session's notes with their authors, oldest first; NOT_FOUND outside the caller's scope.",
  })
  async sessionNotes(
    @Arg('sessionId', () => String) sessionId: string,
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: FIRST_DESCRIPTION }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after?: string | null,
  ): Promise<SessionNoteConnection> {
    const page = await connections.notesPage(context.em, context.services, requireTenant(context), sessionId, { first, after });
    return toConnectionPage(page, byCreation, toNoteObject, after, page.totalCount);
  }

  @Query(() => ListEntryConnection, {
    description: "The entries of a list, oldest first; NOT_FOUND for another tenant's or environment's list.",
  })
  async listEntriesConnection(
    @Arg('listId', () => String) listId: string,
    @Ctx() context: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('first', () => Int, { nullable: true, description: FIRST_DESCRIPTION }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after?: string | null,
  ): Promise<ListEntryConnection> {
    const page = await connections.listEntriesPage(context.em, requireTenant(context), listId, {
      first,
      after,
      count: selectsTotalCount(info),
    });
    return toConnectionPage(page, (entry) => ({ createdAt: entry.addedAt, id: entry.id }), toListEntryObject, after, page.totalCount);
  }

  @Query(() => WebhookDestinationConnection, {
    description: 'The webhook destinations of the calling tenant and environment, oldest first; secrets are never listed.',
  })
  async webhookDestinationsConnection(
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: FIRST_DESCRIPTION }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after?: string | null,
  ): Promise<WebhookDestinationConnection> {
    const page = await connections.destinationsPage(context.em, requireTenant(context), { first, after });
    return toConnectionPage(page, byCreation, toDestinationObject, after, page.totalCount);
  }

  @Query(() => WebhookDeliveryConnection, {
    description:
      "The delivery log of the calling tenant and environment, newest first, by destination, session or status; each delivery's `attempts` and `destination` load in one statement per page. NOT_FOUND for another scope's destination.",
  })
  async webhookDeliveriesConnection(
    @Ctx() context: GraphQLContext,
    @Arg('destinationId', () => ID, { nullable: true }) destinationId?: string | null,
    @Arg('sessionId', () => String, { nullable: true }) sessionId?: string | null,
    @Arg('status', () => WebhookDeliveryStatusEnum, { nullable: true }) status?: WebhookDeliveryStatus | null,
    @Arg('first', () => Int, { nullable: true, description: 'Page size, 1–100; default 20.' }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after?: string | null,
  ): Promise<WebhookDeliveryConnection> {
    const page = await listDeliveries(context.em, requireTenant(context), {
      destinationId,
      sessionId,
      status,
      limit: first,
      cursor: after,
    });
    return toConnectionPage({ rows: page.deliveries, hasNextPage: page.nextCursor !== null }, byCreation, toDeliveryObject, after);
  }

  @Query(() => OperatorConnection, {
    description: 'The operators of the tenant (people see both environments), oldest first; admins signed in to the console only.',
  })
  async operators(
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: FIRST_DESCRIPTION }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after?: string | null,
  ): Promise<OperatorConnection> {
    const page = await connections.operatorsPage(context.em, requireTenant(context), { first, after });
    return toConnectionPage(page, byCreation, (operator) => toOperatorObject(summarise(operator)), after, page.totalCount);
  }

  @Query(() => ApiKeyConnection, {
    description:
      'The API keys of the tenant in the environment of the sign-in (prefixes, never the keys), oldest first; admins signed in to the console only.',
  })
  async apiKeys(
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: FIRST_DESCRIPTION }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: AFTER_DESCRIPTION }) after?: string | null,
  ): Promise<ApiKeyConnection> {
    const page = await connections.apiKeysPage(context.em, requireTenant(context), { first, after });
    const uses = await lastKeyUses(
      context.em,
      context.services.keyUsage,
      page.rows.map((key) => key.id),
    );
    return toConnectionPage(page, byCreation, (key) => toApiKeyObject(key, uses.get(key.id)), after, page.totalCount);
  }
}
