import { z } from 'zod';
import { LIST_POLICIES, LIST_TYPES } from '../../../entities/list.entity.js';
import {
  AddDocumentListEntryDocument,
  AddFaceListEntryDocument,
  AddNameListEntryDocument,
  CreateListDocument,
  DeleteListDocument,
  DeleteListEntryDocument,
  GetListDocument,
  ListListEntriesDocument,
  ListListsDocument,
  UpdateListDocument,
  type ListEntryFieldsFragment,
  type ListFieldsFragment,
} from '../../graphql/generated/operations.js';
import { LIST_FIELDS as fields } from '../../lists/list-input.js';
import { LIST_ENTRIES_PAGE_DEFAULT, LIST_ENTRIES_PAGE_MAX } from '../../lists/list.service.js';
import { defineRoute, GRAPHQL_INT_MAX } from '../route.js';

// Bodies in the spec's snake_case, from the service's field rules; the service checks what spans fields.
const UpdateListBody = z.object({ name: fields.name.optional(), type: fields.type.optional(), policy: fields.policy.optional() }).strict();
const CreateListBody = UpdateListBody.extend({ name: fields.name, type: fields.type });
const FaceEntryBody = z
  .object({ image: fields.image.optional(), reason: fields.reason.optional(), session_id: fields.sessionId.optional() })
  .strict();
const NameEntryBody = z.object({ name: fields.entryName, reason: fields.reason.optional() }).strict();
const DocumentEntryBody = z
  .object({
    country: fields.country,
    id_type: fields.idType,
    document_number: fields.documentNumber,
    reason: fields.reason.optional(),
  })
  .strict();

/** The spec's List JSON. */
export const ListJson = z.object({
  uuid: z.string(),
  name: z.string(),
  type: z.enum(LIST_TYPES),
  policy: z.enum(LIST_POLICIES),
  entries: z.number().int(),
  built_in: z.boolean(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

/** The spec's List entry JSON; `reason` is left out when none was given. */
export const ListEntryJson = z.object({
  uuid: z.string(),
  entry_type: z.enum(LIST_TYPES),
  fingerprint: z.string(),
  reason: z.string().optional(),
  added_by: z.string(),
  added_at: z.number().int(),
});

/** The spec's Face entry creation result JSON. */
export const FaceEntryCreatedJson = z.object({
  uuid: z.string(),
  fingerprint: z.string(),
  raw_image_stored: z.literal(false),
  added_at: z.number().int(),
});

/** Shapes a list for REST. */
export function presentList(list: ListFieldsFragment): z.infer<typeof ListJson> {
  return {
    uuid: list.id,
    name: list.name,
    type: list.type,
    policy: list.policy,
    entries: list.entries,
    built_in: list.builtIn,
    created_at: list.createdAt,
    updated_at: list.updatedAt,
  };
}

/** Shapes an entry for REST. */
export function presentListEntry(entry: ListEntryFieldsFragment): z.infer<typeof ListEntryJson> {
  return {
    uuid: entry.id,
    entry_type: entry.entryType,
    fingerprint: entry.fingerprint,
    ...(entry.reason != null ? { reason: entry.reason } : {}),
    added_by: entry.addedBy,
    added_at: entry.addedAt,
  };
}

const ListParams = z.object({ uuid: z.string().min(1).max(100) });
const EntryParams = z.object({ uuid: z.string().min(1).max(100), entry_uuid: z.string().min(1).max(100) });

/** List and list entry routes. */
export const listRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/lists',
    operationId: 'listLists',
    summary: "The tenant's built-in face, document and name lists plus its custom lists, with entry counts.",
    tag: 'Lists',
    operation: ListListsDocument,
    variables: () => ({}),
    status: 200,
    present: (data) => ({ lists: data.lists.map(presentList) }),
    response: z.object({ lists: z.array(ListJson) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/lists',
    operationId: 'createList',
    summary: 'Creates a custom list; policy defaults to auto_decline for face and document lists, review for name lists.',
    tag: 'Lists',
    operation: CreateListDocument,
    body: CreateListBody,
    variables: ({ body }) => ({ input: { name: body.name, type: body.type, policy: body.policy } }),
    status: 201,
    present: (data) => presentList(data.createList),
    response: ListJson,
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/lists/:uuid',
    operationId: 'getList',
    summary: 'One list of the tenant.',
    tag: 'Lists',
    operation: GetListDocument,
    params: ListParams,
    variables: ({ params }) => ({ id: params.uuid }),
    status: 200,
    present: (data) => presentList(data.list),
    response: ListJson,
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/lists/:uuid',
    operationId: 'updateList',
    summary: 'Renames or re-policies a list, or retypes an empty custom list; built-ins cannot be retyped (403).',
    tag: 'Lists',
    operation: UpdateListDocument,
    params: ListParams,
    body: UpdateListBody,
    variables: ({ params, body }) => ({ id: params.uuid, input: body }),
    status: 200,
    present: (data) => presentList(data.updateList),
    response: ListJson,
    problems: ['forbidden'],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/lists/:uuid',
    operationId: 'deleteList',
    summary: 'Deletes a custom list and its entries; built-ins answer 403.',
    tag: 'Lists',
    operation: DeleteListDocument,
    params: ListParams,
    variables: ({ params }) => ({ id: params.uuid }),
    status: 204,
    present: () => undefined,
    problems: ['forbidden'],
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/lists/:uuid/entries',
    operationId: 'listListEntries',
    summary: `Entries of one list, oldest first; limit default ${LIST_ENTRIES_PAGE_DEFAULT}, at most ${LIST_ENTRIES_PAGE_MAX}.`,
    tag: 'Lists',
    operation: ListListEntriesDocument,
    params: ListParams,
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(LIST_ENTRIES_PAGE_MAX).default(LIST_ENTRIES_PAGE_DEFAULT),
        // GraphQL's Int is 32-bit: a larger offset is a 400 here, not a coercion failure later.
        offset: z.coerce.number().int().min(0).max(GRAPHQL_INT_MAX).default(0),
      })
      .strict(),
    variables: ({ params, query }) => ({ listId: params.uuid, limit: query.limit, offset: query.offset }),
    status: 200,
    present: (data) => ({ count: data.listEntries.count, results: data.listEntries.results.map(presentListEntry) }),
    response: z.object({ count: z.number().int(), results: z.array(ListEntryJson) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/lists/:uuid/entries/face',
    operationId: 'addFaceListEntry',
    summary: 'Adds a face (image with exactly one face, or only session_id to take its selfie template); only the template hash is stored.',
    tag: 'Lists',
    operation: AddFaceListEntryDocument,
    params: ListParams,
    body: FaceEntryBody,
    variables: ({ params, body }) => ({
      listId: params.uuid,
      input: { image: body.image, reason: body.reason, sessionId: body.session_id },
    }),
    status: 201,
    present: (data) => ({
      uuid: data.addFaceListEntry.id,
      fingerprint: data.addFaceListEntry.fingerprint,
      raw_image_stored: false as const,
      added_at: data.addFaceListEntry.addedAt,
    }),
    response: FaceEntryCreatedJson,
    problems: ['engines_busy', 'engine_timeout'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/lists/:uuid/entries/name',
    operationId: 'addNameListEntry',
    summary: 'Adds a name to a name list (stored as the SHA-256 of its normalised form).',
    tag: 'Lists',
    operation: AddNameListEntryDocument,
    params: ListParams,
    body: NameEntryBody,
    variables: ({ params, body }) => ({ listId: params.uuid, input: { name: body.name, reason: body.reason } }),
    status: 201,
    present: (data) => presentListEntry(data.addNameListEntry),
    response: ListEntryJson,
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/lists/:uuid/entries/document',
    operationId: 'addDocumentListEntry',
    summary: 'Adds a document to a document list (stored as the SHA-256 of normalised country, type and number).',
    tag: 'Lists',
    operation: AddDocumentListEntryDocument,
    params: ListParams,
    body: DocumentEntryBody,
    variables: ({ params, body }) => ({
      listId: params.uuid,
      input: { country: body.country, idType: body.id_type, documentNumber: body.document_number, reason: body.reason },
    }),
    status: 201,
    present: (data) => presentListEntry(data.addDocumentListEntry),
    response: ListEntryJson,
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/lists/:uuid/entries/:entry_uuid',
    operationId: 'deleteListEntry',
    summary: 'Removes an entry; it stops gating at once.',
    tag: 'Lists',
    operation: DeleteListEntryDocument,
    params: EntryParams,
    variables: ({ params }) => ({ listId: params.uuid, entryId: params.entry_uuid }),
    status: 204,
    present: () => undefined,
  }),
];
