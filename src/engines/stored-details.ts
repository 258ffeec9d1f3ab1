/**
 * The one case flip of engine output (docs/design.md, "Engine output: one flip, where a result is
 * kept"): engines return camelCase typed details; where a result is kept (a session's node result,
 * a standalone check's REST and `check_run` JSON) its details become the spec's snake_case here.
 */
import { snakeCase } from 'change-case';

/** A camelCase key as the spec spells it: `dateOfBirth` → `date_of_birth`; snake keys stay as they are. */
type SnakeKey<K extends string> = K extends `${infer Head}${infer Tail}`
  ? Head extends Lowercase<Head>
    ? `${Head}${SnakeKey<Tail>}`
    : `_${Lowercase<Head>}${SnakeKey<Tail>}`
  : K;

/** The stored (spec) shape of engine details `T`: every key, at every depth, in snake_case. */
export type StoredDetails<T> = T extends readonly (infer Item)[]
  ? StoredDetails<Item>[]
  : T extends object
    ? { [K in keyof T as K extends string ? SnakeKey<K> : K]: StoredDetails<T[K]> }
    : T;

/**
 * The spec's snake_case details of camelCase engine details, converted once where the result is
 * kept. Key order is kept, so the JSON is byte-equal to details built in snake_case; keys already
 * in snake_case are unchanged, so engines not yet moved pass through. Details hold no data-keyed
 * records (design.md), so every key is a field name.
 */
export function storedDetails<T>(details: T): StoredDetails<T> {
  return convert(details) as StoredDetails<T>;
}

/**
 * A camelCase field name (`dateOfBirth`, `ageOver18`): the only keys converted. Keys already in
 * snake_case, and any other key (`DCS`, `US`, `_x`) an engine not yet moved may hold as data, pass
 * through as they are, since `snakeCase` would lower-case or strip them.
 */
const CAMEL_KEY = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;

function convert(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(convert);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const converted: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) converted[CAMEL_KEY.test(key) ? snakeCase(key) : key] = convert(field);
  return converted;
}

/** An engine result as a session keeps it: the same result with its details in the spec's snake_case (`submit.ts`, `aml-subject.ts`). */
export function keptResult<Result extends { details: Record<string, unknown> }>(result: Result): Result {
  return { ...result, details: storedDetails(result.details) as Record<string, unknown> };
}
