import { storedDetails } from '../../src/engines/stored-details.js';

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

/**
 * What would make the one case flip (`storedDetails`) lossy on an engine's real output: a
 * camelCase key left after it, or two keys that became one (a key count that changed at some
 * depth). Empty when the stored details say exactly what the engine returned, in snake_case.
 */
export function storedFlipProblems(details: unknown): string[] {
  const stored: unknown = storedDetails(details);
  const problems = camelCaseKeys(stored).map((key) => `camelCase key left: ${key}`);
  const walk = (engine: unknown, kept: unknown, at: string): void => {
    if (Array.isArray(engine)) return engine.forEach((item, index) => walk(item, (kept as unknown[])[index], `${at}[${index}]`));
    if (engine === null || typeof engine !== 'object') return;
    const engineKeys = Object.keys(engine);
    const keptKeys = Object.keys(kept as object);
    if (engineKeys.length !== keptKeys.length) problems.push(`${at}: ${engineKeys.length} keys became ${keptKeys.length}`);
    engineKeys.forEach((key, index) =>
      walk((engine as Record<string, unknown>)[key], (kept as Record<string, unknown>)[keptKeys[index]!], `${at}.${keptKeys[index]}`),
    );
  };
  walk(details, stored, '$');
  return problems;
}
