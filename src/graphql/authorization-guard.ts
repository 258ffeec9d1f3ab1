import { defaultFieldResolver, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { authorizeRootField, type RootOperation } from '../auth/authorization.js';
import type { GraphQLContext } from './resolver-context.js';

/** Wraps one root type's fields so {@link authorizeRootField} decides before the field runs (subscriptions: before subscribing). */
function guardRootType(type: GraphQLObjectType | null | undefined, operation: RootOperation): void {
  if (!type) return;
  for (const field of Object.values(type.getFields())) {
    const name = field.name;
    if (operation === 'subscription') {
      const subscribe = field.subscribe;
      if (!subscribe) continue;
      field.subscribe = (source, args, context: GraphQLContext, info) => {
        authorizeRootField(operation, name, context.principal);
        return subscribe(source, args, context, info);
      };
      continue;
    }
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args, context: GraphQLContext, info) => {
      authorizeRootField(operation, name, context.principal);
      return resolve(source, args, context, info);
    };
  }
}

/**
 * Applies the table of who may call what (src/auth/authorization.ts) to every root field of the
 * schema, whichever transport carries it (HTTP, graphql-ws, the REST facade): the caller's kind,
 * the operator's role, and an operator whose password an admin chose may only replace it.
 */
export function guardRootFields(schema: GraphQLSchema): GraphQLSchema {
  guardRootType(schema.getQueryType(), 'query');
  guardRootType(schema.getMutationType(), 'mutation');
  guardRootType(schema.getSubscriptionType(), 'subscription');
  return schema;
}
