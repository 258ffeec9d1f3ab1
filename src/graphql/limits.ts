import {
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';
import { ApiError } from '../errors.js';

/** Ceilings an operation must stay under before it runs. */
export interface OperationLimits {
  /** Deepest nesting of selections, in levels. */
  maxDepth: number;
  /** Most aliased fields in the operation, fragments included. */
  maxAliases: number;
  /** Highest estimated cost, in points (one per field, multiplied by page sizes). */
  maxCost: number;
}

/** Measures depth and alias count of one operation, following fragment spreads once each. */
function measure(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): { depth: number; aliases: number } {
  let aliases = 0;
  const visit = (selectionSet: SelectionSetNode, depth: number, seen: Set<string>): number => {
    let deepest = depth;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) aliases += 1;
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
