import {
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';
import { ApiError } from '../shared/errors.js';

/** Ceilings an operation must stay under before it runs. */
export interface OperationLimits {
  /** Deepest nesting of selections, in levels. */
  maxDepth: number;
  /** Most aliased fields in the operation, fragments included. */
  maxAliases: number;
  /** Highest estimated cost, in points (one per field, multiplied by page sizes). */
  maxCost: number;
}

/**
 * Deepest selection an introspection-only operation may have, every `ofType` counted: the standard
 * introspection query of graphql-js (`getIntrospectionQuery()` with every option, what GraphQL
 * Codegen, GraphiQL and IDEs send) reaches 15 levels through its nine nested `ofType` type
 * references, more than an ordinary query needs; a 300-deep `ofType` chain is refused.
 */
export const INTROSPECTION_MAX_DEPTH = 16;
/**
 * Introspection's own cost cap: how many list fields (`types`, `fields`, `args`…) may sit inside
 * one another. Each multiplies the work by the size of the schema; the standard query nests three
 * (`types { fields { args } }`), a hostile one `types { fields { type { fields … } } }` more.
 */
export const INTROSPECTION_MAX_LIST_NESTING = 3;
/** Introspection fields that return lists. */
const INTROSPECTION_LIST_FIELDS = new Set([
  'types',
  'fields',
  'args',
  'inputFields',
  'enumValues',
  'interfaces',
  'possibleTypes',
  'directives',
]);

/** Whether every field the operation selects at its root is an introspection field (`__schema`, `__type`, `__typename`). */
function isIntrospectionOnly(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): boolean {
  const rootFields = (selectionSet: SelectionSetNode, seen: Set<string>): string[] =>
    selectionSet.selections.flatMap((selection) => {
      if (selection.kind === Kind.FIELD) return [selection.name.value];
      if (selection.kind === Kind.INLINE_FRAGMENT) return rootFields(selection.selectionSet, seen);
      const fragment = fragments.get(selection.name.value);
      if (!fragment || seen.has(fragment.name.value)) return [];
      return rootFields(fragment.selectionSet, new Set([...seen, fragment.name.value]));
    });
  return operation.operation === 'query' && rootFields(operation.selectionSet, new Set()).every((name) => name.startsWith('__'));
}

/** Most introspection list fields nested inside one another in an operation, following fragments once each. */
function listNesting(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): number {
  const visit = (selectionSet: SelectionSetNode, nesting: number, seen: Set<string>): number => {
    let deepest = nesting;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const inner = nesting + (INTROSPECTION_LIST_FIELDS.has(selection.name.value) ? 1 : 0);
        deepest = Math.max(deepest, selection.selectionSet ? visit(selection.selectionSet, inner, seen) : inner);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, visit(selection.selectionSet, nesting, seen));
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        deepest = Math.max(deepest, visit(fragment.selectionSet, nesting, new Set([...seen, fragment.name.value])));
      }
    }
    return deepest;
  };
  return visit(operation.selectionSet, 0, new Set());
}

/** Measures depth and alias count of one operation, following fragment spreads once each. */
function measure(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): { depth: number; aliases: number } {
  let aliases = 0;
  const visit = (selectionSet: SelectionSetNode, depth: number, seen: Set<string>): number => {
    let deepest = depth;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) aliases += 1;
        // `ofType` counts like any field: it fans out to nothing, but a chain of hundreds is work
        // (and memory) in every layer that walks the document; INTROSPECTION_MAX_DEPTH leaves room for the standard query.
        if (selection.selectionSet) deepest = Math.max(deepest, visit(selection.selectionSet, depth + 1, seen));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, visit(selection.selectionSet, depth, seen));
      } else {
        const fragment = fragments.get(selection.name.value);
        // A fragment cycle is invalid GraphQL; validation reports it, we just must not loop.
        if (!fragment || seen.has(fragment.name.value)) continue;
        deepest = Math.max(deepest, visit(fragment.selectionSet, depth, new Set([...seen, fragment.name.value])));
      }
    }
    return deepest;
  };
  const depth = visit(operation.selectionSet, 1, new Set());
  return { depth, aliases };
}

/** Throws QUERY_TOO_COMPLEX when the selected operation exceeds a limit; runs before execution. */
export function assertWithinLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
  limits: OperationLimits,
): void {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const operation = operationName ? operations.find((candidate) => candidate.name?.value === operationName) : operations[0];
  if (!operation) return;
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  const { depth, aliases } = measure(operation, fragments);
  if (isIntrospectionOnly(operation, fragments)) {
    // Introspection has its own ceilings: deeper, but bounded in the lists it multiplies.
    const maxDepth = Math.max(limits.maxDepth, INTROSPECTION_MAX_DEPTH);
    if (depth > maxDepth) throw new ApiError('query_too_complex', `Introspection depth ${depth} exceeds the limit of ${maxDepth}.`);
    if (aliases > limits.maxAliases)
      throw new ApiError('query_too_complex', `The query uses ${aliases} aliases; the limit is ${limits.maxAliases}.`);
    const nesting = listNesting(operation, fragments);
    if (nesting > INTROSPECTION_MAX_LIST_NESTING)
      throw new ApiError(
        'query_too_complex',
        `Introspection nests ${nesting} lists inside one another; the limit is ${INTROSPECTION_MAX_LIST_NESTING}.`,
      );
    return;
  }
  if (depth > limits.maxDepth) throw new ApiError('query_too_complex', `Query depth ${depth} exceeds the limit of ${limits.maxDepth}.`);
  if (aliases > limits.maxAliases)
    throw new ApiError('query_too_complex', `The query uses ${aliases} aliases; the limit is ${limits.maxAliases}.`);
  const cost = getComplexity({
    schema,
    query: document,
    operationName: operation.name?.value,
    variables: variables ?? {},
    estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
  });
  if (cost > limits.maxCost) throw new ApiError('query_too_complex', `Query cost ${cost} exceeds the limit of ${limits.maxCost}.`);
}
