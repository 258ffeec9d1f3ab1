import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { encodeKeysetCursor, type KeysetPosition } from '../src/shared/pagination.js';

/** Relay page info: where a page starts and ends, and whether pages lie beyond it. */
@ObjectType('PageInfo', { description: 'Where a page of a connection starts and ends (Relay cursor connections).' })
export class PageInfo {
  @Field(() => Boolean, { description: 'True when more items follow the last edge (pass `endCursor` as `after`).' })
  hasNextPage!: boolean;

  @Field(() => Boolean, {
    description: 'True when the page was asked for `after` a cursor, so items come before it; false on the first page.',
  })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Cursor of the first edge; null on an empty page.' })
  startCursor?: string | null;

  @Field(() => String, { nullable: true, description: 'Cursor of the last edge; null on an empty page.' })
  endCursor?: string | null;
}

/** One edge of a connection: the node and the opaque cursor that points at it. */
export interface Edge<T> {
  cursor: string;
  node: T;
}

/** A page of a connection as resolvers return it; `totalCount` only where the connection declares it. */
export interface ConnectionPage<T> {
  edges: Edge<T>[];
  pageInfo: PageInfo;
  totalCount?: number | null;
}

/** What {@link Connection} builds: a class to name in `@Query(() => …)` whose instances are pages. */
export type ConnectionClass<T> = ClassType<ConnectionPage<T>>;

/** Options of {@link Connection}. */
export interface ConnectionOptions {
  /** The GraphQL description of the connection type. */
  description: string;
  /** Describes a `totalCount` field (what it counts); absent when counting would cost more than the page itself. */
  totalCount?: string;
}

/**
 * Builds the `<Name>Connection` and `<Name>Edge` types of a node type, so every paginated list of
 * the API has the same Relay shape (`edges { cursor node }`, `pageInfo`, optional `totalCount`)
 * instead of a hand-copied pair per node.
 */
export function Connection<T extends object>(node: ClassType<T>, name: string, options: ConnectionOptions): ConnectionClass<T> {
  @ObjectType(`${name}Edge`, { description: `An edge of ${name}Connection: one node and the cursor that points at it.` })
  class EdgeType {
    @Field(() => String, { description: 'Opaque; pass it as `after` to read the items that follow this one.' })
    cursor!: string;

    @Field(() => node)
    node!: T;
  }

  @ObjectType(`${name}Connection`, { description: options.description })
  class ConnectionType {
    @Field(() => [EdgeType])
    edges!: EdgeType[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;

    totalCount?: number | null;
  }
  if (options.totalCount) Field(() => Int, { description: options.totalCount })(ConnectionType.prototype, 'totalCount');
  return ConnectionType;
}

/** A page of rows read with one row more than asked for (`rows.length > first` means more follow). */
export interface KeysetRows<R> {
  rows: R[];
  hasNextPage: boolean;
}

/**
 * Shapes a keyset page as a connection page: each edge's cursor encodes its row's position, and
 * `hasPreviousPage` is true when the page was read after a cursor (that cursor's row comes before).
 */
export function toConnectionPage<R, T>(
  page: KeysetRows<R>,
  positionOf: (row: R) => KeysetPosition,
  toNode: (row: R) => T,
  after: string | null | undefined,
  totalCount?: number,
): ConnectionPage<T> {
  const edges = page.rows.map((row) => ({ cursor: encodeKeysetCursor(positionOf(row)), node: toNode(row) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: Boolean(after),
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    ...(totalCount !== undefined ? { totalCount } : {}),
  };
}

/** Whether `selections` (fragments included) ask for the field `name` at their own level. */
function selectsIn(selections: SelectionSetNode | undefined, name: string, info: GraphQLResolveInfo): boolean {
  return (selections?.selections ?? []).some((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === name;
    if (selection.kind === Kind.INLINE_FRAGMENT) return selectsIn(selection.selectionSet, name, info);
    return selectsIn(info.fragments[selection.name.value]?.selectionSet, name, info);
  });
}

/**
 * Whether the query asks the resolved connection for `totalCount`: a count over a large set (the
 * review queue at 100k sessions in review) costs more than the page itself, so it is made only
 * for the clients that read it.
 */
export function selectsTotalCount(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.some((node) => selectsIn(node.selectionSet, 'totalCount', info));
}
