/**
 * The AML vocabulary the tables, the engines and the API share: which lists exist and what kinds
 * of subject they list. Plain constants; the screening itself is in src/engines/aml.
 */

/** Every list the service can screen against; the default of `POST /v1/aml` `lists`. */
export const AML_LISTS = ['OFAC_SDN', 'EU_CONSOLIDATED', 'UN_SC', 'PEP', 'ADVERSE_MEDIA'] as const;

/** One list name, as it appears in requests (`lists`) and responses (`checked_lists`). */
export type AmlList = (typeof AML_LISTS)[number];

/** What a listed subject is; only persons carry dates of birth. */
export const ENTITY_KINDS = ['person', 'organization', 'vessel', 'aircraft', 'other'] as const;

/** A listed subject's kind. */
export type EntityKind = (typeof ENTITY_KINDS)[number];

/** True when `value` is one of AML_LISTS; validates `lists` from untyped input. */
export function isAmlList(value: unknown): value is AmlList {
  return typeof value === 'string' && (AML_LISTS as readonly string[]).includes(value);
}
