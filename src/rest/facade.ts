import { requireRestCaller } from '../auth/authorization.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { z } from 'zod';
import { ApiError, type FieldError } from '../shared/errors.js';
import { runOperation } from '../graphql/execute.js';
import { snakeFieldName, withRenamedFields } from '../shared/input-rules.js';
import { ID_MAX_LENGTH, findUnstorableText, toFieldErrors } from '../shared/validation.js';
import type { RequestContextFactory } from '../http/request-context.js';
import type { RestRoute } from './route.js';

/** Validates one part of the request; a failure is a 400 listing every bad field. */
function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, prefix: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new ApiError('validation_failed', 'The request has invalid fields.', toFieldErrors(result.error, prefix));
}

/**
 * Refuses what no route can store, before any schema looks at it: NUL or unpaired surrogates
 * anywhere in the path, query or body, JSON nested too deep, and path ids longer than
 * ID_MAX_LENGTH. Fields are named as the client wrote them (snake_case).
 */
function assertStorableRequest(request: FastifyRequest): void {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const problems: FieldError[] = Object.entries(params)
    .filter(([, value]) => typeof value === 'string' && value.length > ID_MAX_LENGTH)
    .map(([name]) => ({ field: name, code: 'too_long', message: `${name} must be at most ${ID_MAX_LENGTH} characters` }));
  problems.push(...findUnstorableText(params), ...findUnstorableText(request.query ?? {}));
  if (request.body !== undefined) problems.push(...findUnstorableText(request.body));
  if (problems.length > 0) throw new ApiError('validation_failed', 'The request has invalid fields.', problems);
}

/** Methods a REST path may be called with, for the 405 answer of the others. */
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Answers every method a known path does not serve with 405 and an `Allow` header listing those it
 * does (RFC 9110 §15.5.6), instead of a 404 that suggests the path does not exist.
 */
function registerMethodNotAllowed(app: FastifyInstance, routes: readonly RestRoute[]): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) methodsByPath.set(route.path, (methodsByPath.get(route.path) ?? new Set()).add(route.method));
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
    const others = HTTP_METHODS.filter((method) => !methods.has(method));
    if (others.length === 0) continue;
    app.route({
      method: others,
      url: path,
      handler: async () => {
        throw new ApiError('method_not_allowed', `This path accepts ${allow}.`, [], { Allow: allow });
      },
    });
  }
}

/** Registers every route of the table on fastify: authenticate, validate, run the operation, present. */
export function registerRestFacade(
  app: FastifyInstance,
  schema: GraphQLSchema,
  routes: readonly RestRoute[],
  createContext: RequestContextFactory,
): void {
  registerMethodNotAllowed(app, routes);
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.path,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const context = await createContext(request);
        requireRestCaller(context.principal, route.credential ?? 'api_key');
        route.before?.((request.params ?? {}) as Record<string, string>);
        if (route.body && request.body === undefined) {
          throw new ApiError('validation_failed', 'A JSON body is required.', [
            { field: '(body)', code: 'required', message: 'send a JSON object with Content-Type: application/json' },
          ]);
        }
        assertStorableRequest(request);
        const input = {
          params: parsePart(route.params, request.params, ''),
          query: parsePart(route.query, request.query, ''),
          body: parsePart(route.body, request.body, ''),
        };
        const data = await runOperation(schema, route.operation, route.variables(input), context).catch((error: unknown) => {
          // GraphQL names fields in camelCase; a REST client reads the names it sent. The routes'
          // `variables` give each snake_case field the camelCase name of the same words, so this is their inverse.
          throw withRenamedFields(error, snakeFieldName);
        });
        const status = typeof route.status === 'function' ? route.status(data) : route.status;
        const body = route.present(data);
        reply.code(status);
        return body === undefined ? reply.send() : reply.send(body);
      },
    });
  }
}
