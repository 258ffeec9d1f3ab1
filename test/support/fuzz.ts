/**
 * Generators for the fuzz suite (test/security/fuzz.test.ts): values shaped by a REST body's JSON
 * schema or a GraphQL input type, with the security audit's classes of bad input mixed in at every
 * leaf (NUL, lone surrogates, over-long text, malformed countries, deep JSON, 32-bit overflows,
 * wrong types, unknown fields).
 */
import fc from 'fast-check';
import { getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, type GraphQLInputType } from 'graphql';

/** Real ids of the fuzzing tenant, so generated requests reach past "not found" into validation. */
export type IdPool = Record<string, string[]>;

/**
 * JSON nested `depth` levels deep (the audit's 5,000 gave a 500). Held as a marker and written out
 * as text by {@link toJsonText}: neither fast-check's printer nor JSON.stringify on a test worker's
 * stack could walk it.
 */
export class DeepJson {
  constructor(readonly depth: number) {}
  [fc.toStringMethod](): string {
    return `<JSON nested ${this.depth} deep>`;
  }
}

/** JSON text of a generated value, with each {@link DeepJson} written out in full. */
export function toJsonText(value: unknown): string {
  const deep: DeepJson[] = [];
  const text = JSON.stringify(value, (_key, field: unknown) => {
    if (!(field instanceof DeepJson)) return field;
    deep.push(field);
    return `\u0001deep${deep.length - 1}\u0001`;
  });
  return text.replace(/"\\u0001deep(\d+)\\u0001"/g, (_match, index: string) => {
    const depth = deep[Number(index)]!.depth;
    return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  });
}

/** The audit's hostile strings, plus ordinary ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  fc.constantFrom(
    'Ada\u0000x',
    '\u0000',
    'Ada\ud800x',
    '\udc00',
    'Jo\u3164hn',
    'A\u2800B',
    'GBR',
    'United Kingdom',
    'G1',
    '',
    ' ',
    '../../etc/passwd',
    "'; drop table session; --",
    '{"$ne":null}',
    'data:image/png;base64,iVBORw0KGgo=',
    'data:application/pdf;base64,JVBERi0xLjQKJSVFT0YK',
    'sandbox:approve',
    'https://example.com/hook',
    'http://127.0.0.1:1/x',
    '1e400',
    '\u202eevil',
  ),
  fc.constantFrom(5_000, 100_001).map((length) => 'x'.repeat(length)),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** Integers around every boundary the audit found (2^31, 2^53) and ordinary ones. */
export const hostileInteger: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -5, max: 200 }) },
  fc.constantFrom(2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, 1e300),
);

/** Any JSON value, including deep nesting and hostile keys. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  fc.constantFrom(new DeepJson(40), new DeepJson(5_000), { 'k\u0000': 1 }, { a: 'v\ud800' }, { __proto__: { polluted: true } }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
);

/** A value of the wrong kind for any field. */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  hostileInteger,
  hostileString,
  fc.constant([]),
  fc.constant({}),
  fc.double(),
);

/** A string for a field, an id from the pool when the field's name says it is one. */
function stringFor(name: string, ids: IdPool): fc.Arbitrary<string> {
  const pool = Object.entries(ids).find(([key]) => name.toLowerCase().includes(key))?.[1] ?? [];
  return pool.length > 0 ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...pool) }, hostileString, fc.uuid()) : hostileString;
}

/** A JSON schema as zod's `toJSONSchema` writes it (the parts the generator reads). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** A body for a JSON schema: mostly well-shaped with hostile leaves, sometimes wrong types or unknown fields. */
export function fromJsonSchema(schema: JsonSchema, ids: IdPool, name = '', depth = 0): fc.Arbitrary<unknown> {
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants && variants.length > 0) return fc.oneof(...variants.map((variant) => fromJsonSchema(variant, ids, name, depth)));
  if (schema.enum) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...schema.enum) }, hostileString);
  if (schema.const !== undefined) return fc.oneof({ weight: 3, arbitrary: fc.constant(schema.const) }, wrongType);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const shaped = ((): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        return stringFor(name, ids);
      case 'integer':
        return hostileInteger;
      case 'number':
        return fc.oneof(hostileInteger, fc.double());
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(schema.items && depth < 4 ? fromJsonSchema(schema.items, ids, name, depth + 1) : hostileJson, { maxLength: 4 });
      case 'object': {
        if (!schema.properties || depth >= 4) return hostileJson;
        const required = new Set(schema.required ?? []);
        const fields = Object.fromEntries(
          Object.entries(schema.properties).map(([key, property]) => [key, fromJsonSchema(property, ids, key, depth + 1)]),
        );
        const record = fc.record(fields, { requiredKeys: [...required].filter((key) => key in fields) });
        return fc.oneof(
          { weight: 4, arbitrary: record },
          fc.tuple(record, hostileString, hostileJson).map(([body, key, value]) => ({ ...(body as object), [key]: value })),
        );
      }
      default:
        return hostileJson;
    }
  })();
  return fc.oneof({ weight: 5, arbitrary: shaped }, wrongType);
}

/** Variables for a GraphQL input type: valid shapes with hostile leaves, sometimes wrong kinds. */
export function fromGraphQLType(type: GraphQLInputType, ids: IdPool, name: string, depth = 0): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return fromGraphQLType(type.ofType, ids, name, depth);
  if (isListType(type)) return fc.array(fromGraphQLType(type.ofType, ids, name, depth + 1), { maxLength: depth < 3 ? 3 : 0 });
  const named = getNamedType(type);
  let shaped: fc.Arbitrary<unknown>;
  if (isEnumType(named)) shaped = fc.constantFrom(...named.getValues().map((value) => value.name));
  else if (isInputObjectType(named)) {
    const fields = named.getFields();
    const arbitraries = Object.fromEntries(
      Object.values(fields).map((field) => [
        field.name,
        depth < 4 ? fromGraphQLType(field.type, ids, field.name, depth + 1) : fc.constant(null),
      ]),
    );
    const required = Object.values(fields)
      .filter((field) => isNonNullType(field.type))
      .map((field) => field.name);
    shaped = fc.record(arbitraries, { requiredKeys: required });
  } else if (isScalarType(named)) {
    switch (named.name) {
      case 'String':
      case 'ID':
        shaped = stringFor(name, ids);
        break;
      case 'Int':
      case 'UnixTime':
        shaped = hostileInteger;
        break;
      case 'Float':
        shaped = fc.double();
        break;
      case 'Boolean':
        shaped = fc.boolean();
        break;
      default:
        shaped = hostileJson;
    }
  } else shaped = hostileJson;
  return fc.oneof({ weight: 6, arbitrary: shaped }, wrongType);
}
