import { requireCaller } from '../src/auth/authorization.js';
import { Arg, Resolver, Root, Subscription } from 'type-graphql';
import type { SessionStatusEvent } from '../src/events/live-status.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { readSession } from '../src/sessions/read.js';
import { SessionStatusEventObject, SessionStatusSubscriptionFilter } from './session-status.type.js';

/** Shapes a hub event for GraphQL (drops the routing fields tenantId and seq). */
function toEventObject(event: SessionStatusEvent): SessionStatusEventObject {
  return {
    id: event.id,
    sessionId: event.sessionId,
    workflowId: event.workflowId,
    vendorData: event.vendorData,
    environment: event.environment,
    status: event.status,
    previousStatus: event.previousStatus,
    actor: event.actor,
    reason: event.reason,
    changedAt: event.changedAt,
  };
}

/** Live status: committed session status changes of the calling tenant and environment, over graphql-ws. */
@Resolver()
export class SessionStatusResolver {
  @Subscription(() => SessionStatusEventObject, {
    description:
      "Every committed status change of the key's tenant and environment (creation included), in commit order, optionally filtered.",
    subscribe: ({ args, context }) => {
      const principal = requireTenant(context as GraphQLContext);
      const filter = (args.filter ?? {}) as SessionStatusSubscriptionFilter;
      return (context as GraphQLContext).services.live.subscribe(
        { tenantId: principal.tenantId, environment: principal.environment },
        { sessionId: filter.sessionId, workflowId: filter.workflowId, vendorData: filter.vendorData, statuses: filter.statuses },
      );
    },
  })
  sessionStatusChanged(
    @Root() event: SessionStatusEvent,
    // Declared for the schema; the subscribe function above applies it.
    @Arg('filter', () => SessionStatusSubscriptionFilter, { nullable: true }) _filter?: SessionStatusSubscriptionFilter,
  ): SessionStatusEventObject {
    return toEventObject(event);
  }

  @Subscription(() => SessionStatusEventObject, {
    description:
      "The review queue of the caller's tenant and environment, live: a session entering in_review (status in_review) or leaving it (previousStatus in_review), in commit order; and a case's holder changing (actor claim, status and previousStatus in_review, reason the holder's name or null once released). The console follows it.",
    subscribe: ({ context }) => {
      const principal = requireTenant(context as GraphQLContext);
      return (context as GraphQLContext).services.live.subscribe(
        { tenantId: principal.tenantId, environment: principal.environment },
        { touching: 'in_review', claims: true },
      );
    },
  })
  reviewQueue(@Root() event: SessionStatusEvent): SessionStatusEventObject {
    return toEventObject(event);
  }

  @Subscription(() => SessionStatusEventObject, {
    description:
      "Status changes of one session, for the hosted flow's page (session token in connection_init's x-session-token) or the tenant's key; the computer that showed the QR code follows the phone this way.",
    subscribe: async ({ args, context }) => {
      const graphqlContext = context as GraphQLContext;
      const principal = requireCaller(graphqlContext.principal);
      const { session } = await readSession(graphqlContext.em, graphqlContext.services, principal, args.sessionId as string);
      return graphqlContext.services.live.subscribe(
        { tenantId: session.tenantId, environment: session.environment },
        { sessionId: session.id },
      );
    },
  })
  hostedFlowChanged(@Root() event: SessionStatusEvent, @Arg('sessionId', () => String) _sessionId: string): SessionStatusEventObject {
    return toEventObject(event);
  }
}
