/**
 * GraphQL limits refuse absurd depth and cost while the standard introspection still works (issue
 * 28 point 3; shaped like the audit's gql_limits.mjs): a 300-deep `ofType` introspection is
 * refused before it runs, for an API key and an end-user link alike; graphql-js's
 * getIntrospectionQuery() (plain and with every option) is answered and builds the schema we
 * publish; and GraphQL Codegen's own URL loader (@graphql-tools/url-loader, what `schema: <url>`
 * in codegen.yml uses) loads it from the running server.
 */
import { readFileSync } from 'node:fs';
import { loadSchema } from '@graphql-tools/load';
import { UrlLoader } from '@graphql-tools/url-loader';
import {
  buildClientSchema,
  buildSchema,
  getIntrospectionQuery,
  lexicographicSortSchema,
  printSchema,
  type IntrospectionQuery,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

/** The schema file codegen.yml reads, as the server should publish it. */
const PUBLISHED = printSchema(lexicographicSortSchema(buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'))));
/** The same without `@specifiedBy`, which introspection only returns when asked (`specifiedByUrl`). */
const PUBLISHED_PLAIN = PUBLISHED.replace(/ @specifiedBy\(url: "[^"]*"\)/g, '');

/** `{ __schema { types { name ofType { ofType { … } } } } }` with `depth` nested `ofType`. */
const ofTypeChain = (depth: number) => `{ __schema { types { name ${'ofType { '.repeat(depth)}name${' }'.repeat(depth)} } } }`;

let testApp: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
});
afterAll(() => testApp?.close());

describe('GraphQL depth and cost limits', () => {
  it('given a 300-deep ofType introspection, when posted with an API key, then QUERY_TOO_COMPLEX naming the depth, nothing answered', async () => {
    const response = await testApp.graphql(ofTypeChain(300), undefined, tenant.sandboxKey);
    expect(response.body.data, JSON.stringify(response.body).slice(0, 400)).toBeUndefined();
    expect(response.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect(response.body.errors?.[0]?.message).toMatch(/depth 30\d exceeds the limit of 16/);
  });

  it('given a 20-deep ofType chain (past what the standard query uses), when posted, then it is refused too', async () => {
    const response = await testApp.graphql(ofTypeChain(20), undefined, tenant.sandboxKey);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('given the standard introspection query of graphql-js, plain and with every option, when posted, then it is answered and builds the published schema', async () => {
    const queries = [
      getIntrospectionQuery(),
      getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
        oneOf: true,
      }),
    ];
    for (const [query, expected] of [
      [queries[0], PUBLISHED_PLAIN],
      [queries[1], PUBLISHED],
    ] as const) {
      const response = await testApp.graphql<IntrospectionQuery>(query, undefined, tenant.sandboxKey);
      expect(response.body.errors).toBeUndefined();
      expect(printSchema(lexicographicSortSchema(buildClientSchema(response.body.data!)))).toBe(expected);
    }
  });

  it("given GraphQL Codegen's URL loader pointed at the running server, when it loads the schema, then it is the published one", async () => {
    const schema = await loadSchema(`${testApp.url}/graphql`, {
      loaders: [new UrlLoader()],
      headers: { 'x-api-key': tenant.sandboxKey },
    });
    expect(printSchema(lexicographicSortSchema(schema)).replace(/ @specifiedBy\(url: "[^"]*"\)/g, '')).toBe(PUBLISHED_PLAIN);
  });
});
