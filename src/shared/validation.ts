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

/** Longest id accepted anywhere (path parameters, GraphQL id arguments), in characters: ours are UUIDs or short slugs. */
export const ID_MAX_LENGTH = 100;
/** Deepest nesting accepted in a JSON input such as `metadata`, in levels: deeper input is refused before anything recurses over it. */
export const JSON_MAX_DEPTH = 32;
/** Most problems reported for one request: enough to fix a body, not a report the size of the input. */
const MAX_REPORTED_PROBLEMS = 20;

/** NUL or an unpaired UTF-16 surrogate: neither can be stored in a PostgreSQL text or jsonb value. */
const UNSTORABLE_TEXT = /\u0000|\p{Cs}/u;

/** Why a string cannot be stored as text (NUL, lone surrogate), or undefined when it can. */
export function textProblem(value: string): string | undefined {
  if (!UNSTORABLE_TEXT.test(value)) return undefined;
  return value.includes('\u0000')
    ? 'must not contain the NUL character (U+0000)'
    : 'must not contain an unpaired UTF-16 surrogate (invalid Unicode)';
}

/**
 * Every string (and object key) in a JSON value that PostgreSQL would refuse, and every place
 * nested deeper than JSON_MAX_DEPTH, with the path as the client wrote it. The one text check
 * both transports run before validation, so such input is a 400 naming the field, never a 500.
 * Iterative, so a hostile nesting depth cannot overflow the stack.
 */
export function findUnstorableText(value: unknown, root = ''): FieldError[] {
  const problems: FieldError[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  while (stack.length > 0 && problems.length < MAX_REPORTED_PROBLEMS) {
    const { value: current, path, depth } = stack.pop()!;
    const field = path || '(body)';
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) problems.push({ field, code: 'invalid_text', message: `${field} ${problem}` });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= JSON_MAX_DEPTH) {
      problems.push({ field, code: 'too_deep', message: `${field} is nested deeper than ${JSON_MAX_DEPTH} levels` });
      continue;
    }
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--)
        stack.push({ value: current[index], path: `${path}[${index}]`, depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(current).reverse()) {
      const childPath = path ? `${path}.${key}` : key;
      const keyProblem = textProblem(key);
      // The key itself is shown escaped: it holds the very character that is refused.
      if (keyProblem) problems.push({ field, code: 'invalid_text', message: `the key ${JSON.stringify(key)} of ${field} ${keyProblem}` });
      else stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return problems;
}

/** Replaces NUL and other control characters (tabs and line breaks excepted) in text read from a document, so it can be stored. */
export function stripControlCharacters(text: string): string {
  // Lone surrogates become U+FFFD: extracted text is evidence, not input to refuse.
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '').replace(/\p{Cs}/gu, '\uFFFD');
}
