import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { z } from 'zod';
import { ApiError } from '../errors.js';
import { runOperation } from '../graphql/execute.js';
import { toFieldErrors } from '../validation.js';
import type { RequestContextFactory } from '../http/request-context.js';
import type { RestRoute } from './route.js';

/** Validates one part of the request; a failure is a 400 listing every bad field. */
function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, prefix: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new ApiError('validation_failed', 'The request has invalid fields.', toFieldErrors(result.error, prefix));
}

/** Registers every route of the table on fastify: authenticate, validate, run the operation, present. */
export function registerRestFacade(
  app: FastifyInstance,
  schema: GraphQLSchema,
  routes: readonly RestRoute[],
  createContext: RequestContextFactory,
): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.path,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const context = await createContext(request);
        // The REST facade is the tenant's API: only API keys, never end-user session tokens.
        if (context.principal?.kind !== 'api_key') throw new ApiError('unauthenticated', 'A valid x-api-key header is required.');
        if (route.body && request.body === undefined) {
          throw new ApiError('validation_failed', 'A JSON body is required.', [
            { field: '(body)', code: 'required', message: 'send a JSON object with Content-Type: application/json' },
          ]);
        }
        const input = {
          params: parsePart(route.params, request.params, ''),
          query: parsePart(route.query, request.query, ''),
          body: parsePart(route.body, request.body, ''),
        };
        const data = await runOperation(schema, route.operation, route.variables(input), context);
        const status = typeof route.status === 'function' ? route.status(data) : route.status;
        const body = route.present(data);
        reply.code(status);
        return body === undefined ? reply.send() : reply.send(body);
      },
    });
  }
}
