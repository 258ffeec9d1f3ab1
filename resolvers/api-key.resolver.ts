import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { createApiKey, revokeTenantApiKey, type ApiKeySummary } from '../src/tenants/api-key-admin.service.js';
import { unixSeconds } from '../src/shared/time.js';
import { CreatedApiKeyObject } from './api-key.type.js';
import { ApiKeyObject } from './connections.type.js';

/** Shapes a key for GraphQL. */
function toApiKeyObject(key: ApiKeySummary): ApiKeyObject {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    environment: key.environment,
    createdAt: unixSeconds(key.createdAt),
    revokedAt: key.revokedAt ? unixSeconds(key.revokedAt) : null,
    // Creating and revoking answer the key as changed; its last use is read through the apiKeys connection.
    lastUsedAt: null,
    lastUsedAddress: null,
  };
}

/** Creating and revoking the organisation's API keys, in the environment the admin works in: signed-in admins only, never a key (the `apiKeys` connection lists them). */
@Resolver()
export class ApiKeyResolver {
  @Mutation(() => CreatedApiKeyObject, {
    description: 'Creates an API key in the current environment; its secret is in this answer only. Admins in the console only; audited.',
  })
  async createApiKey(@Arg('name', () => String) name: string, @Ctx() context: GraphQLContext): Promise<CreatedApiKeyObject> {
    const created = await createApiKey(context.em, requireTenant(context), name);
    return {
      secret: created.key,
      apiKey: toApiKeyObject({ ...created, createdAt: new Date(), revokedAt: null }),
    };
  }

  @Mutation(() => ApiKeyObject, {
    description: 'Revokes an API key of the current environment; it stops working at once. Admins only; audited.',
  })
  async revokeApiKey(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<ApiKeyObject> {
    return toApiKeyObject(await revokeTenantApiKey(context.em, context.services, requireTenant(context), id));
  }
}
