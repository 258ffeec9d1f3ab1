import { z } from 'zod';
import { RESUBMISSION_REASONS } from '../domain/resubmission.js';
import { NODE_TYPES } from '../domain/types.js';
import type { Config } from '../shared/config.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../shared/errors.js';
import { exampleProblem, OPERATION_EXAMPLES, WEBHOOK_EXAMPLES } from './openapi-examples.js';
import type { RestRoute } from './route.js';
import { AmlResultJson } from './routes/aml.js';
import { IdVerificationResultJson } from './routes/id-verification.js';
import { FlowSettingsJson } from './routes/flow-settings.js';
import { FaceEntryCreatedJson, ListEntryJson, ListJson } from './routes/lists.js';
import { PoaResultJson } from './routes/poa.js';
import { DecisionJson, IntrospectionJson, SessionDetailJson, SessionJson } from './routes/sessions.js';
import { ImportedSessionJson, LedgerEntryJson, ShareTokenJson } from './routes/sharing.js';
import { VerificationProgressJson } from './routes/steps.js';
import { WebhookAttemptJson, WebhookDeliveryJson, WebhookDestinationJson } from './routes/webhooks.js';
import { WorkflowJson } from './routes/workflows.js';

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

/** Status of a session as webhooks carry it (the same enum the Session schema uses). */
const SessionStatusJson = SessionJson.shape.status;

// Payloads of the events the service emits (src/webhooks/payloads.ts builds them; docs/webhooks.md explains them).
// v3: the decision itself as it was when the status changed, with the change's own fields beside it.
const StatusChangedDataJson = DecisionJson.extend({
  status: SessionStatusJson,
  previous_status: SessionStatusJson.nullable(),
  environment: z.enum(['live', 'sandbox']),
  actor: z.string(),
  reason: z.string().optional(),
  changed_at: z.number().int(),
});
const AgentRevokedDataJson = z.object({
  jti: z.string(),
  session_id: z.string(),
  vendor_data: z.string().nullable(),
  revoked_at: z.number().int(),
  reason: z.string().nullable(),
});
const TestDataJson = z.object({ destination_id: z.string(), test: z.literal(true) });
const ResubmissionDataJson = z.object({
  session_id: z.string(),
  workflow_id: z.string(),
  vendor_data: z.string().nullable(),
  node_type: z.enum(NODE_TYPES),
  resubmission_reason: z.enum(RESUBMISSION_REASONS),
  attempts: z.number().int(),
  attempts_remaining: z.number().int(),
  /** Only on a reviewer's request (`reviewer_request`): the reviewer's reason. */
  reason: z.string().optional(),
  /** Only on a reviewer's request: the catalogue code the reviewer chose, when one was. */
  reason_code: z.string().optional(),
});

/** The v3 envelope of one event type: `{id, type, timestamp, data}`. */
function v3Envelope(type: string, data: z.ZodType): z.ZodType {
  return z.object({ id: z.string(), type: z.literal(type), timestamp: z.number().int(), data });
}

/** Every event in every payload version, keyed by the OpenAPI `webhooks` entry name. */
const WEBHOOK_EVENTS: Record<string, { summary: string; schema: z.ZodType }> = {
  'session.status_changed.v3': {
    summary: 'A session changed status (v3: envelope, full decision attached).',
    schema: v3Envelope('session.status_changed', StatusChangedDataJson),
  },
  'session.status_changed.v2': {
    summary: 'A session changed status (v2: flat).',
    schema: z.object({
      event: z.literal('session.status_changed'),
      created_at: z.number().int(),
      session_id: z.string(),
      status: SessionStatusJson,
      previous_status: SessionStatusJson.nullable(),
      workflow_id: z.string().nullable(),
      vendor_data: z.string().nullable(),
      reasons: DecisionJson.shape.reasons,
    }),
  },
  'session.status_changed.v1': {
    summary: 'A session changed status (v1: minimal, with the reasons).',
    schema: z.object({
      event: z.literal('session.status_changed'),
      session_id: z.string(),
      status: SessionStatusJson,
      reasons: DecisionJson.shape.reasons,
    }),
  },
  'agent.revoked.v3': { summary: 'A service token was revoked (v3).', schema: v3Envelope('agent.revoked', AgentRevokedDataJson) },
  'agent.revoked.v2': {
    summary: 'A service token was revoked (v2: payload fields flat).',
    schema: AgentRevokedDataJson.extend({ event: z.literal('agent.revoked'), created_at: z.number().int() }),
  },
  'agent.revoked.v1': {
    summary: 'A service token was revoked (v1).',
    schema: z.object({ event: z.literal('agent.revoked'), session_id: z.string() }),
  },
  'session.resubmission_requested.v3': {
    summary: "A step's photo could not be read: the end user is asked for a retake (v3).",
    schema: v3Envelope('session.resubmission_requested', ResubmissionDataJson),
  },
  'session.resubmission_requested.v2': {
    summary: "A step's photo could not be read (v2: payload fields flat).",
    schema: ResubmissionDataJson.extend({ event: z.literal('session.resubmission_requested'), created_at: z.number().int() }),
  },
  'session.resubmission_requested.v1': {
    summary: "A step's photo could not be read (v1).",
    schema: z.object({ event: z.literal('session.resubmission_requested'), session_id: z.string() }),
  },
  'webhook.test.v3': { summary: 'POST /v1/webhooks/{id}/test sent it (v3).', schema: v3Envelope('webhook.test', TestDataJson) },
  'webhook.test.v2': {
    summary: 'POST /v1/webhooks/{id}/test sent it (v2).',
    schema: TestDataJson.extend({ event: z.literal('webhook.test'), created_at: z.number().int() }),
  },
  'webhook.test.v1': {
    summary: 'POST /v1/webhooks/{id}/test sent it (v1; session_id is null).',
    schema: z.object({ event: z.literal('webhook.test'), session_id: z.null() }),
  },
};

/**
 * Names of the shared schemas: each becomes `#/components/schemas/<name>` and is referenced by
 * `$ref`, so generated clients get one `Session` type instead of an anonymous copy per operation.
 */
const NAMED_SCHEMAS: [z.ZodType, string][] = [
  [SessionJson, 'Session'],
  [SessionDetailJson, 'SessionDetail'],
  [DecisionJson, 'Decision'],
  [IntrospectionJson, 'ServiceTokenIntrospection'],
  [WorkflowJson, 'Workflow'],
  [ListJson, 'List'],
  [ListEntryJson, 'ListEntry'],
  [FaceEntryCreatedJson, 'FaceListEntryCreated'],
  [WebhookDestinationJson, 'WebhookDestination'],
  [WebhookDeliveryJson, 'WebhookDelivery'],
  [WebhookAttemptJson, 'WebhookAttempt'],
  [LedgerEntryJson, 'LedgerEntry'],
  [ShareTokenJson, 'ShareToken'],
  [ImportedSessionJson, 'ImportedSession'],
  [AmlResultJson, 'AmlResult'],
  [IdVerificationResultJson, 'IdVerificationResult'],
  [PoaResultJson, 'ProofOfAddressResult'],
  [VerificationProgressJson, 'VerificationProgress'],
  [FlowSettingsJson, 'FlowSettings'],
  [ProblemJson, 'Problem'],
  [StatusChangedDataJson, 'SessionStatusChangedData'],
  [AgentRevokedDataJson, 'AgentRevokedData'],
  [ResubmissionDataJson, 'ResubmissionRequestedData'],
];

/** Converts zod schemas to JSON Schema, collecting the named ones into `components.schemas`. */
class SchemaCollector {
  /** The components' schemas, by name. */
  readonly components: Record<string, unknown> = {};
  // A local registry, not z.globalRegistry: the names are the document's business, not the routes'.
  private readonly registry = z.registry<{ id: string }>();
  private readonly names = new Map<z.ZodType, string>();

  constructor(named: [z.ZodType, string][]) {
    for (const [schema, id] of named) {
      this.registry.add(schema, { id });
      this.names.set(schema, id);
    }
  }

  /** JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) of a zod schema, named parts as `$ref`s. */
  convert(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
    const name = this.names.get(schema);
    // Named schemas are only shared on the output side; an input's defaults make it a different shape.
    if (name && io === 'input') return this.plain(schema, io);
    if (name) {
      this.components[name] ??= this.plain(schema, io, name);
      return { $ref: `#/components/schemas/${name}` };
    }
    return this.plain(schema, io);
  }

  /** Converts one schema, hoisting the named schemas it uses into the components. */
  private plain(schema: z.ZodType, io: 'input' | 'output', self?: string): Record<string, unknown> {
    const converted = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      metadata: io === 'output' ? this.registry : undefined,
      reused: 'inline',
    });
    // zod points at its own `$defs`; the document keeps them under components.
    const relocated = JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/')) as Record<string, unknown>;
    const { $schema: _schema, $defs, id: _id, ...rest } = relocated as Record<string, unknown> & { $defs?: Record<string, any> };
    let own: Record<string, unknown> = rest;
    for (const [name, definition] of Object.entries($defs ?? {})) {
      const { id: _defId, ...body } = definition as Record<string, unknown>;
      // A named root comes back as a $ref to its own definition; the component is that definition.
      if (name === self) own = body;
      else this.components[name] ??= body;
    }
    return own;
  }
}

/** One line per tag, for the reference's navigation. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Workflows: 'Which checks a session runs, in which order.',
  Sessions: 'One verification of one person: create, read, decide.',
  'Service tokens': 'Short-lived signed tokens that prove a verification to another service.',
  Sharing: 'Reuse a verification in another application of the same operator.',
  Lists: 'Allow and block lists of faces, names and documents.',
  AML: 'Sanctions and PEP screening of a name.',
  'Proof of address': 'Checks of an address document.',
  'ID verification': 'Checks of an identity document alone.',
  'Reason codes': 'Why a step or a session failed or went to review: the built-in catalogue and your own codes.',
  'Hosted flow': 'Settings of the verification page at each session `url`: branding, redirect and embedding origins, language.',
  'End-user steps': "The end user's steps of a session, with the session token of its `url` or the API key.",
  Webhooks: 'Signed event deliveries to your endpoints, and their logs (the events are under `webhooks`).',
};

/** Codes every operation can answer whatever its route: the server's own failures. */
const SERVER_PROBLEMS: readonly ErrorCode[] = ['internal_error', 'service_unavailable'];

/**
 * Error codes an operation can answer, by status: those every route of its shape shares
 * (credentials, validation, ids in the path, writes) and its own (`route.problems`). 5xx codes
 * are collected under `default`.
 */
function problemCodes(route: RestRoute): Map<number | 'default', ErrorCode[]> {
  const codes: ErrorCode[] = ['unauthenticated', 'forbidden', 'rate_limited'];
  if (route.params || route.query || route.body) codes.push('validation_failed');
  if (route.body) codes.push('malformed_json', 'payload_too_large', 'unsupported_media_type');
  if (route.params) codes.push('not_found');
  if (route.method !== 'GET') codes.push('conflict');
  const byStatus = new Map<number | 'default', ErrorCode[]>();
  for (const code of new Set([...codes, ...(route.problems ?? []), ...SERVER_PROBLEMS])) {
    const { status } = ERROR_CATALOGUE[code];
    const key = status >= 500 ? 'default' : status;
    byStatus.set(key, [...(byStatus.get(key) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => (a === 'default' ? 1 : b === 'default' ? -1 : a - b)));
}

/**
 * One error response: the Problem schema, its codes in the description and one example per code,
 * as the service would send it for a request to `instance`; `field` is the field a
 * validation_failed example names.
 */
function problemResponse(codes: ErrorCode[], instance: string, field?: string): Record<string, unknown> {
  const examples: Record<string, unknown> = {};
  for (const code of codes) examples[code] = { summary: ERROR_CATALOGUE[code].title, value: exampleProblem(code, instance, field) };
  return {
    description: `Problem details (RFC 9457); \`code\` is one of: ${codes.map((code) => `\`${code}\``).join(', ')}.`,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples } },
  };
}

/** Converts `/v1/workflows/:workflow_id` to `/v1/workflows/{workflow_id}`. */
function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}');
}

/** Builds the OpenAPI 3.1 document of the `/v1` facade from its route table. */
export function buildOpenApiDocument(routes: readonly RestRoute[], config: Config): Record<string, unknown> {
  const schemas = new SchemaCollector(NAMED_SCHEMAS);
  const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => schemas.convert(schema, io);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const examples = OPERATION_EXAMPLES[route.operationId] ?? {};
    const parameters: Record<string, unknown>[] = [];
    if (route.params) {
      for (const [name, schema] of Object.entries(jsonSchema(route.params, 'input').properties as Record<string, unknown>)) {
        const example = examples.params?.[name];
        parameters.push({ name, in: 'path', required: true, schema, ...(example !== undefined ? { example } : {}) });
      }
    }
    if (route.query) {
      const query = jsonSchema(route.query, 'input');
      const required = new Set((query.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries(query.properties as Record<string, unknown>)) {
        parameters.push({ name, in: 'query', required: required.has(name), schema });
      }
    }
    const success = (description: string, example: unknown) =>
      route.response
        ? {
            description,
            content: {
              'application/json': { schema: jsonSchema(route.response, 'output'), ...(example !== undefined ? { example } : {}) },
            },
          }
        : { description: 'Success, no body' };
    const responses: Record<string, unknown> =
      typeof route.status === 'number'
        ? { [String(route.status)]: success('Success', examples.response) }
        : {
            '200': success('An existing resource was returned', examples.existing),
            '201': success('Created', examples.response),
          };
    // Problem examples carry the path the example request went to, and name a field it sent.
    const instance = route.path.replace(/:([a-z_]+)/g, (whole, name: string) => examples.params?.[name] ?? whole);
    const field =
      (examples.request && typeof examples.request === 'object' ? Object.keys(examples.request)[0] : undefined) ??
      (parameters[0]?.name as string | undefined);
    for (const [status, codes] of problemCodes(route)) responses[String(status)] = problemResponse(codes, instance, field);
    paths[openApiPath(route.path)] ??= {};
    paths[openApiPath(route.path)][route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      security: route.credential === 'api_key_or_session_token' ? [{ apiKey: [] }, { sessionToken: [] }] : [{ apiKey: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: jsonSchema(route.body, 'input'),
                  ...(examples.request !== undefined ? { example: examples.request } : {}),
                },
              },
            },
          }
        : {}),
      responses,
    };
  }
  jsonSchema(ProblemJson, 'output');
  const webhooks: Record<string, unknown> = {};
  for (const [name, event] of Object.entries(WEBHOOK_EVENTS)) {
    webhooks[name] = {
      post: {
        operationId: `webhook_${name.replace(/\./g, '_')}`,
        summary: event.summary,
        description: 'Signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers); see docs/webhooks.md.',
        tags: ['Webhooks'],
        security: [],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: jsonSchema(event.schema, 'output'), example: WEBHOOK_EXAMPLES[name] } },
        },
        responses: {
          '200': { description: 'Any 2xx acknowledges the delivery.' },
          '410': { description: 'Gone: the destination is disabled and gets no more deliveries.' },
          default: { description: 'Any other answer or none: the delivery is retried on the schedule.' },
        },
      },
    };
  }
  const tags = [...new Set(routes.map((route) => route.tag))].map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? `Operations on ${name.toLowerCase()}.`,
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Identity verification API',
      version: '1.0.0',
      description: 'REST facade over the GraphQL schema at /graphql. Errors are RFC 9457 problem details.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    tags,
    servers: [{ url: config.PUBLIC_URL ?? '/' }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        sessionToken: {
          type: 'apiKey',
          in: 'header',
          name: 'x-session-token',
          description: 'The token in the session `url` (its `token` query parameter); reaches that one session only.',
        },
      },
      schemas: schemas.components,
    },
    paths,
    webhooks,
  };
}
