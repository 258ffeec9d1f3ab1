import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import type { Introspection } from '../src/sessions/service-tokens.js';
import { ServiceTokenIntrospection } from './session.type.js';

/** Shapes an introspection for GraphQL. */
function toIntrospection(state: Introspection): ServiceTokenIntrospection {
  const claims = state.claims;
  return {
    active: state.active,
    status: state.status,
    jti: claims?.jti ?? null,
    sessionId: claims?.session_id ?? null,
    tenantId: claims?.tenant_id ?? null,
    workflowId: claims?.workflow_id ?? null,
    complianceLevel: claims?.compliance_level ?? null,
    vendorData: claims?.vendor_data ?? null,
    issuedAt: claims?.iat ?? null,
    expiresAt: claims?.exp ?? null,
    revokedAt: state.revokedAt,
  };
}

/** Service tokens: introspection and revocation (`agent.revoked`). */
@Resolver()
export class ServiceTokenResolver {
  @Query(() => ServiceTokenIntrospection, {
    description:
      "Says whether one of the tenant's service tokens of the key's environment is valid, expired or revoked; any other token is invalid.",
  })
  async introspectServiceToken(
    @Arg('token', () => String) token: string,
    @Ctx() context: GraphQLContext,
  ): Promise<ServiceTokenIntrospection> {
    const principal = requireTenant(context);
    return toIntrospection(await context.services.tokens.introspect(context.em, principal, token));
  }

  @Mutation(() => ServiceTokenIntrospection, {
    description: "Revokes one of the tenant's service tokens of the key's environment (NOT_FOUND for any other); emits agent.revoked.",
  })
  async revokeServiceToken(
    @Arg('token', () => String) token: string,
    @Arg('reason', () => String) reason: string,
    @Ctx() context: GraphQLContext,
  ): Promise<ServiceTokenIntrospection> {
    const principal = requireTenant(context);
    return toIntrospection(await context.services.tokens.revoke(context.em, context.services.bus, principal, token, reason));
  }
}
