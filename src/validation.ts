import type { z } from 'zod';
import { validationError, type FieldError } from './errors.js';

/** Renders a zod issue path as the client wrote it: `nodes[1].type`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, '');
}

/** Maps zod issues to field errors with stable codes. */
export function toFieldErrors(error: z.ZodError, prefix = ''): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const field = fieldPath([...(prefix ? [prefix] : []), ...issue.path, key]);
        return { field, code: 'unknown_field', message: `${field} is not a known field` };
      });
    }
    const field = fieldPath([...(prefix ? [prefix] : []), ...issue.path]) || prefix || '(body)';
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    return [{ field, code: missing ? 'required' : 'invalid', message: missing ? `${field} is required` : issue.message }];
  });
}

/** Parses input with a schema or throws a 400 `validation_failed` listing every bad field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown, prefix = ''): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(toFieldErrors(result.error, prefix));
}
