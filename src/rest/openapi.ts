import { z } from 'zod';
import type { Config } from '../config.js';
import { ERROR_CATALOGUE } from '../errors.js';
import type { RestRoute } from './route.js';

/** RFC 9457 problem body, as every error of the facade is sent. */
const ProblemJson = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.enum(Object.keys(ERROR_CATALOGUE) as [string, ...string[]]),
  errors: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })).optional(),
  instance: z.string().optional(),
});

/** JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) of a zod schema, for the input side or the output side. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** Converts `/v1/workflows/:workflow_id` to `/v1/workflows/{workflow_id}`. */
function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}');
}

/** Builds the OpenAPI 3.1 document of the `/v1` facade from its route table. */
export function buildOpenApiDocument(routes: readonly RestRoute[], config: Config): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters: unknown[] = [];
    if (route.params) {
      for (const [name, schema] of Object.entries(jsonSchema(route.params, 'input').properties as Record<string, unknown>)) {
        parameters.push({ name, in: 'path', required: true, schema });
      }
    }
    if (route.query) {
      const query = jsonSchema(route.query, 'input');
      const required = new Set((query.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries(query.properties as Record<string, unknown>)) {
        parameters.push({ name, in: 'query', required: required.has(name), schema });
      }
    }
    const successStatus = typeof route.status === 'number' ? String(route.status) : '200';
    const responses: Record<string, unknown> = {
      [successStatus]: route.response
        ? { description: 'Success', content: { 'application/json': { schema: jsonSchema(route.response, 'output') } } }
        : { description: 'Success, no body' },
      default: {
        description: 'Problem details (RFC 9457)',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    };
    if (typeof route.status === 'function') {
      responses['201'] = responses[successStatus];
      responses['200'] = { ...(responses[successStatus] as object), description: 'An existing resource was returned' };
    }
    paths[openApiPath(route.path)] ??= {};
    paths[openApiPath(route.path)][route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      security: [{ apiKey: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Identity verification API',
      version: '1.0.0',
      description: 'REST facade over the GraphQL schema at /graphql. Errors are RFC 9457 problem details.',
    },
    servers: [{ url: config.PUBLIC_URL ?? '/' }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: { Problem: jsonSchema(ProblemJson, 'output') },
    },
    paths,
  };
}
