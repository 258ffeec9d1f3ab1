/**
 * Operations sent over WebSockets are parsed and validated once per distinct text
 * (src/graphql/document-cache.ts): thousands of consoles subscribing with the same query share
 * one syntax tree instead of holding a copy each. Invalid operations keep failing with the same
 * errors, and a syntax error still throws as `parse` does.
 */
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { parseAndValidate } from '../../src/graphql/document-cache.js';
import { getSchema } from '../../src/graphql/schema.js';

const SUBSCRIPTION = 'subscription { sessionStatusChanged { id sessionId status previousStatus changedAt } }';

describe('the operation document cache', () => {
  it('given the same subscription text twice, when checked, then both get the one validated document', async () => {
    const schema = await getSchema();
    const first = parseAndValidate(schema, SUBSCRIPTION);
    const second = parseAndValidate(schema, `${SUBSCRIPTION}`);
    expect(first.errors).toBeUndefined();
    expect(first.document?.kind).toBe('Document');
    expect(second.document).toBe(first.document);
  });

  it('given an operation that fails validation, when checked twice, then both times it fails with the field named', async () => {
    const schema = await getSchema();
    const query = 'subscription { sessionStatusChanged { id noSuchField } }';
    for (let round = 0; round < 2; round += 1) {
      const checked = parseAndValidate(schema, query);
      expect(checked.document).toBeUndefined();
      expect(checked.errors?.map((error) => error.message).join('\n')).toMatch(/noSuchField/);
    }
  });

  it('given text that is not GraphQL, when checked, then it throws a syntax error', async () => {
    const schema = await getSchema();
    expect(() => parseAndValidate(schema, 'subscription {')).toThrow(GraphQLError);
  });
});
