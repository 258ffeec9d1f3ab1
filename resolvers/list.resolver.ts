import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { ListEntry } from '../entities/list.entity.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import * as lists from '../src/lists/list.service.js';
import { unixSeconds } from '../src/shared/time.js';
import { CreateListInput, DocumentListEntryInput, FaceListEntryInput, NameListEntryInput, UpdateListInput } from './list.input.js';
import { FaceEntryCreatedObject, ListEntryObject, ListEntryPageObject, ListObject } from './list.type.js';

/** Shapes a list and its count for GraphQL. */
export function toListObject({ list, entries }: lists.ListWithCount): ListObject {
  return {
    id: list.id,
    name: list.name,
    type: list.type,
    policy: list.policy,
    entries,
    builtIn: list.builtIn,
    createdAt: unixSeconds(list.createdAt),
    updatedAt: unixSeconds(list.updatedAt),
  };
}

/** Shapes an entry for GraphQL. */
export function toListEntryObject(entry: ListEntry): ListEntryObject {
  return {
    id: entry.id,
    entryType: entry.entryType,
    fingerprint: entry.fingerprint,
    reason: entry.reason ?? null,
    addedBy: entry.addedBy,
    addedByName: entry.addedByName ?? null,
    addedAt: unixSeconds(entry.addedAt),
    labelSealed: entry.labelSealed ?? null,
  };
}

/** Lists and their entries (docs/design.md "Lists"). */
@Resolver(() => ListObject)
export class ListResolver {
  @Query(() => [ListObject], {
    description: "The tenant's built-in face, document and name lists and its custom lists, with entry counts.",
  })
  async lists(@Ctx() context: GraphQLContext): Promise<ListObject[]> {
    const scope = requireTenant(context);
    return (await lists.listLists(context.em, scope)).map(toListObject);
  }

  @Query(() => ListObject, { description: "One list; NOT_FOUND when it is another tenant's." })
  async list(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<ListObject> {
    const scope = requireTenant(context);
    return toListObject(await lists.getList(context.em, scope, id));
  }

  @Query(() => ListEntryPageObject, { description: 'A page of entries, oldest first: limit default 50, at most 500.' })
  async listEntries(
    @Arg('listId', () => String) listId: string,
    @Arg('limit', () => Int, { nullable: true }) limit: number | null,
    @Arg('offset', () => Int, { nullable: true }) offset: number | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ListEntryPageObject> {
    const scope = requireTenant(context);
    const page = await lists.listEntries(context.em, scope, listId, { limit, offset });
    return { count: page.count, results: page.entries.map(toListEntryObject) };
  }

  @Mutation(() => ListObject, { description: 'Creates a custom list.' })
  async createList(@Arg('input', () => CreateListInput) input: CreateListInput, @Ctx() context: GraphQLContext): Promise<ListObject> {
    const scope = requireTenant(context);
    return toListObject(await lists.createList(context.em, scope, input));
  }

  @Mutation(() => ListObject, { description: 'Renames, re-policies or retypes a list; built-ins cannot be retyped (FORBIDDEN).' })
  async updateList(
    @Arg('id', () => String) id: string,
    @Arg('input', () => UpdateListInput) input: UpdateListInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ListObject> {
    const scope = requireTenant(context);
    return toListObject(await lists.updateList(context.em, scope, id, input));
  }

  @Mutation(() => Boolean, { description: 'Deletes a custom list and its entries; built-ins are FORBIDDEN.' })
  async deleteList(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    const scope = requireTenant(context);
    await lists.deleteList(context.em, scope, id);
    return true;
  }

  @Mutation(() => FaceEntryCreatedObject, { description: 'Adds a face to a face list; only its template hash is stored, never the image.' })
  async addFaceListEntry(
    @Arg('listId', () => String) listId: string,
    @Arg('input', () => FaceListEntryInput) input: FaceListEntryInput,
    @Ctx() context: GraphQLContext,
  ): Promise<FaceEntryCreatedObject> {
    const principal = requireTenant(context);
    // An image runs the face model (in either environment): one unit of the tenant's hourly face quota.
    if (input.image != null) await context.services.rateLimits.chargeEngine(principal, 'face');
    const created = await lists.addFaceEntry(context.em, context.services, principal, listId, input);
    return {
      id: created.entry.id,
      fingerprint: created.entry.fingerprint,
      rawImageStored: created.rawImageStored,
      addedAt: unixSeconds(created.entry.addedAt),
    };
  }

  @Mutation(() => ListEntryObject, { description: 'Adds a name (stored as the SHA-256 of its normalised form) to a name list.' })
  async addNameListEntry(
    @Arg('listId', () => String) listId: string,
    @Arg('input', () => NameListEntryInput) input: NameListEntryInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ListEntryObject> {
    const principal = requireTenant(context);
    return toListEntryObject(await lists.addNameEntry(context.em, context.services.secrets, principal, listId, input));
  }

  @Mutation(() => ListEntryObject, { description: 'Adds a document (SHA-256 of country, type and number) to a document list.' })
  async addDocumentListEntry(
    @Arg('listId', () => String) listId: string,
    @Arg('input', () => DocumentListEntryInput) input: DocumentListEntryInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ListEntryObject> {
    const principal = requireTenant(context);
    return toListEntryObject(await lists.addDocumentEntry(context.em, context.services.secrets, principal, listId, input));
  }

  @Mutation(() => Boolean, { description: 'Removes an entry; it gates nothing from that instant.' })
  async deleteListEntry(
    @Arg('listId', () => String) listId: string,
    @Arg('entryId', () => String) entryId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    const scope = requireTenant(context);
    await lists.deleteEntry(context.em, scope, listId, entryId);
    return true;
  }
}

/** The readable label of an entry, opened for whoever may read the list (the gate never reads it). */
@Resolver(() => ListEntryObject)
export class ListEntryLabelResolver {
  @FieldResolver(() => String, {
    nullable: true,
    description:
      'What the entry is, for people: the name or document as added, or the session a face came from. Sealed at rest; null on entries added before labels. Gates match the fingerprint only.',
  })
  label(@Root() entry: ListEntryObject, @Ctx() context: GraphQLContext): string | null {
    return entry.labelSealed ? context.services.secrets.decrypt(entry.labelSealed) : null;
  }
}
