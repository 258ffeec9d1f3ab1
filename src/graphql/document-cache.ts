import { parse, validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import { LRUCache } from 'lru-cache';

/** Distinct operation texts kept parsed and validated per schema (the console, hosted flow and SDKs send a handful). */
const DOCUMENT_CACHE_ENTRIES = 500;
/** Longest operation text cached; longer ones (rare, hand-written) are parsed each time. */
const DOCUMENT_CACHE_MAX_QUERY_CHARS = 16_384;

/** A parsed operation that passed validation, or the errors it failed with. */
export type CheckedDocument = { document: DocumentNode; errors?: undefined } | { document?: undefined; errors: readonly GraphQLError[] };

const caches = new WeakMap<GraphQLSchema, LRUCache<string, CheckedDocument>>();

/**
 * Parses and validates an operation once per distinct text: thousands of consoles subscribing
 * with the same query share one syntax tree (about 5 KB each when parsed per subscription) and
 * skip re-validating it. Documents are never mutated by execution, so sharing them is safe;
 * validation depends only on the schema, which keys the cache. Syntax errors are thrown, as
 * `parse` does.
 */
export function parseAndValidate(schema: GraphQLSchema, query: string): CheckedDocument {
  let cache = caches.get(schema);
  if (!cache) caches.set(schema, (cache = new LRUCache({ max: DOCUMENT_CACHE_ENTRIES })));
  const cached = query.length <= DOCUMENT_CACHE_MAX_QUERY_CHARS ? cache.get(query) : undefined;
  if (cached) return cached;
  const document = parse(query);
  const errors = validate(schema, document);
  const checked: CheckedDocument = errors.length > 0 ? { errors } : { document };
  if (query.length <= DOCUMENT_CACHE_MAX_QUERY_CHARS) cache.set(query, checked);
  return checked;
}
