/**
 * The fuzz suite (issue 13.12): for every REST route and every GraphQL query and mutation with
 * arguments, generated requests shaped by the route's body schema or the operation's input types,
 * with the audit's classes of bad input at every leaf (test/support/fuzz.ts). Each request must
 * answer below 500; a REST refusal must be problem details with a `code`, a GraphQL error must carry
 * a code other than INTERNAL_ERROR; and after a refusal nothing the tenant owns may have changed.
 *
 * Seeded (FUZZ_SEED, printed on failure by fast-check) and bounded per route in runs and time
 * (FUZZ_RUNS, FUZZ_MS_PER_TARGET), so CI runs the same requests every time on both databases.
 */
import fc from 'fast-check';
import { getNamedType, isCompositeType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getSchema } from '../../src/graphql/schema.js';
import { REST_ROUTES } from '../../src/rest/routes/index.js';
import { DeepJson, fromGraphQLType, fromJsonSchema, hostileString, toJsonText, type IdPool, type JsonSchema } from '../support/fuzz.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { SANDBOX_IMAGE } from '../sessions/support.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const MS_PER_TARGET = Number(process.env.FUZZ_MS_PER_TARGET ?? 4_000);

/**
 * Tables whose rows of a tenant make up what it owns. Webhook deliveries and attempts are left out:
 * on a shared server database another file's emitter fans this tenant's committed events out at
 * any time; the events themselves (`outbox_event`) are in.
 */
const OWNED_TABLES = [
  'callback_secret',
  'check_run',
  'flow_settings',
  'list',
  'list_entry',
  'outbox_event',
  'phone_otp',
  'service_token',
  'session',
  'session_list_subject',
  'session_status_change',
  'share_token',
  'webhook_destination',
  'workflow',
];

let testApp: TestApp;
let tenant: TestTenant;
const ids: IdPool = {};

/** A digest of every row the tenant owns (node results through its sessions). */
async function ownedState(): Promise<string> {
  const parts = OWNED_TABLES.map(
    (table) => `select '${table}' as t, count(*)::text as n, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h
      from ${table} x where tenant_id = $1`,
  );
  parts.push(`select 'session_node_result', count(*)::text, md5(coalesce(string_agg(x::text, '|' order by x::text), ''))
      from session_node_result x where session_id in (select id from session where tenant_id = $1)`);
  const rows = await testApp.app.orm.em
    .fork()
    .getConnection()
    .execute<{ t: string; n: string; h: string }[]>(
      parts.join(' union all ').replaceAll('$1', '?'),
      OWNED_TABLES.map(() => tenant.id).concat(tenant.id),
    );
  return rows.map((row) => `${row.t}:${row.n}:${row.h}`).join(',');
}

/** The request and answer in a failure message, long strings and deep JSON shortened. */
function describeRequest(request: unknown): string {
  return JSON.stringify(request, (_key, value: unknown) => {
    if (value instanceof DeepJson) return `<JSON nested ${value.depth} deep>`;
    return typeof value === 'string' && value.length > 200 ? `${value.slice(0, 200)}…(${value.length})` : value;
  });
}

beforeAll(async () => {
  // No background jobs: what changes must come from the requests alone.
  testApp = await startTestApp({ JOBS_ENABLED: 'false', DEV_ALLOW_LOOPBACK_WEBHOOKS: 'true' });
  tenant = await testApp.tenant('fuzz tenant');
  const key = tenant.sandboxKey;
  const workflow = await testApp.rest('POST', '/v1/workflows', {
    key,
    body: { name: 'Fuzz', nodes: [{ type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' }] },
  });
  const session = await testApp.rest('POST', '/v1/sessions', { key, body: { workflow_id: 'standard_kyc', vendor_data: 'fuzz-user' } });
  const list = await testApp.rest('POST', '/v1/lists', { key, body: { name: 'Fuzz list', type: 'name' } });
  const entry = await testApp.rest('POST', `/v1/lists/${list.body.uuid}/entries/name`, { key, body: { name: 'Fuzz Person' } });
  const destination = await testApp.rest('POST', '/v1/webhook-destinations', { key, body: { url: 'http://127.0.0.1:9/fuzz' } });
  for (const [what, response] of Object.entries({ workflow, session, list, entry, destination }))
    expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
  ids.session = [session.body.session_id];
  ids.workflow = [workflow.body.workflow_id, 'standard_kyc'];
  ids.list = [list.body.uuid];
  ids.entry = [entry.body.uuid];
  ids.destination = [destination.body.uuid];
  ids.uuid = [list.body.uuid, destination.body.uuid];
  ids.image = [SANDBOX_IMAGE];
});
afterAll(async () => {
  await testApp?.close();
});

describe('fuzz: every REST route', () => {
  for (const route of REST_ROUTES) {
    it(`${route.method} ${route.path}`, async () => {
      const paramNames = [...route.path.matchAll(/:([a-z_]+)/g)].map((match) => match[1]!);
      const paramArbitrary = fc.record(
        Object.fromEntries(
          paramNames.map((name) => {
            const pool = ids[name.replace(/_?(id|uuid)$/, '') || 'uuid'] ?? ids.uuid ?? [];
            return [name, fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...(pool.length ? pool : ['x'])) }, hostileString, fc.uuid())];
          }),
        ),
      );
      const querySchema = route.query ? (z.toJSONSchema(route.query, { unrepresentable: 'any', io: 'input' }) as JsonSchema) : null;
      const queryArbitrary = querySchema?.properties
        ? fc.dictionary(
            fc.constantFrom(...Object.keys(querySchema.properties), 'unknown'),
            fc.oneof(hostileString, fc.integer().map(String), fc.constantFrom('2147483648', '9007199254740993', '-1', '1e3')),
            { maxKeys: 3 },
          )
        : fc.constant({});
      const bodySchema = route.body ? (z.toJSONSchema(route.body, { unrepresentable: 'any', io: 'input' }) as JsonSchema) : null;
      const bodyArbitrary = bodySchema ? fromJsonSchema(bodySchema, ids) : fc.constant(undefined);

      await fc.assert(
        fc.asyncProperty(paramArbitrary, queryArbitrary, bodyArbitrary, async (params, query, body) => {
          const path =
            route.path.replace(/:([a-z_]+)/g, (_match, name: string) => encodeURIComponent(params[name] as string)) +
            (Object.keys(query).length > 0 ? `?${new URLSearchParams(query as Record<string, string>)}` : '');
          const before = await ownedState();
          const response = await testApp.rest(route.method, path, {
            key: tenant.sandboxKey,
            ...(route.method === 'GET' || route.method === 'DELETE' || body === undefined ? {} : { rawBody: toJsonText(body) }),
          });
          const request = describeRequest({ method: route.method, path, body, status: response.status, answer: response.body });
          expect(response.status, request).toBeLessThan(500);
          if (response.status >= 400) {
            expect(response.headers.get('content-type'), request).toContain('application/problem+json');
            expect(typeof response.body?.code, request).toBe('string');
            expect(await ownedState(), `refused but changed: ${request}`).toBe(before);
          }
        }),
        { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: MS_PER_TARGET, markInterruptAsFailure: false, endOnFailure: true },
      );
    });
  }
});

describe('fuzz: every GraphQL query and mutation with arguments', async () => {
  const schema = await getSchema();
  const roots: [string, GraphQLObjectType][] = [
    ['query', schema.getQueryType()!],
    ['mutation', schema.getMutationType()!],
  ];
  for (const [kind, root] of roots) {
    for (const field of Object.values(root.getFields()) as GraphQLField<unknown, unknown>[]) {
      if (field.args.length === 0) continue;
      it(`${kind} ${field.name}`, async () => {
        const variables = fc.record(Object.fromEntries(field.args.map((arg) => [arg.name, fromGraphQLType(arg.type, ids, arg.name)])));
        const definitions = field.args.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
        const argumentList = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
        const selection = isCompositeType(getNamedType(field.type)) ? '{ __typename }' : '';
        const document = `${kind} (${definitions}) { ${field.name}(${argumentList}) ${selection} }`;

        await fc.assert(
          fc.asyncProperty(variables, async (values) => {
            const before = await ownedState();
            const answer = await fetch(`${testApp.url}/graphql`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-api-key': tenant.sandboxKey },
              body: toJsonText({ query: document, variables: values }),
            });
            const response = { status: answer.status, body: (await answer.json()) as any };
            const request = describeRequest({ document, variables: values, status: response.status, answer: response.body });
            expect(response.status, request).toBeLessThan(500);
            for (const error of response.body.errors ?? []) {
              expect(typeof error.extensions?.code, request).toBe('string');
              expect(error.extensions?.code, request).not.toBe('INTERNAL_ERROR');
            }
            const refused = (response.body.errors?.length ?? 0) > 0 && (response.body.data ?? null)?.[field.name] == null;
            if (refused) expect(await ownedState(), `refused but changed: ${request}`).toBe(before);
          }),
          { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: MS_PER_TARGET, markInterruptAsFailure: false, endOnFailure: true },
        );
      });
    }
  }
});

describe('what the HTTP layer refuses before any route', () => {
  it('given a header section over 16 KB, when it arrives, then 431 problem details', async () => {
    const response = await fetch(`${testApp.url}/v1/workflows`, {
      headers: { 'x-api-key': tenant.sandboxKey, 'x-padding': 'x'.repeat(20_000) },
    });
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  it('given a path parameter over the router limit, when it arrives, then 400 problem details; a shorter over-long id names its field', async () => {
    const tooLong = await testApp.rest('GET', `/v1/workflows/${'x'.repeat(2_000)}`, { key: tenant.sandboxKey });
    expect(tooLong.status).toBe(400);
    expect(tooLong.headers.get('content-type')).toContain('application/problem+json');
    expect(tooLong.body.code).toBe('validation_failed');
    const overId = await testApp.rest('GET', `/v1/workflows/${'x'.repeat(500)}`, { key: tenant.sandboxKey });
    expect(overId.status).toBe(400);
    expect(overId.body.errors?.[0]?.field).toBe('workflow_id');
  });
});
