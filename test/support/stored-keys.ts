/**
 * Every object key, at any depth, that is camelCase: details a session keeps are the spec's
 * snake_case (docs/design.md "Engine output: one flip, where a result is kept"), so a test of a
 * live engine's stored result expects none.
 */
export function camelCaseKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(camelCaseKeys);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, field]) => [...(/[a-z][A-Z]/.test(key) ? [key] : []), ...camelCaseKeys(field)]);
}
