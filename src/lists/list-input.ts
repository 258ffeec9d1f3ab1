/**
 * What the list operations accept: the rule of each field once, the service's camelCase schemas
 * (GraphQL's inputs as they are) and the types of the input before validation.
 */
import { z } from 'zod';
import { LIST_POLICIES, LIST_TYPES } from '../../entities/list.entity.js';
import { documentNumberKey, sortedTokenKey } from '../engines/aml/normalize.js';
import { CountryCodeAnyCase, notGiven, type Unchecked } from '../shared/input-rules.js';

/**
 * The rule of each list and entry field, once: the service's camelCase schemas and the REST
 * bodies' snake_case ones (src/rest/routes/lists.ts) are built from these.
 */
export const LIST_FIELDS = {
  name: z.string().trim().min(1).max(200),
  type: z.enum(LIST_TYPES),
  policy: z.enum(LIST_POLICIES),
  /** Free-text reason of an entry. */
  reason: z.string().max(1000),
  image: z.string().min(1),
  sessionId: z.string().min(1).max(100),
  entryName: z
    .string()
    .max(500)
    .refine((name) => sortedTokenKey(name).length > 0, { message: 'name has no letters or digits' }),
  country: CountryCodeAnyCase,
  idType: z.string().min(1).max(50),
  documentNumber: z
    .string()
    .max(100)
    .refine((value) => documentNumberKey(value).length > 0, { message: 'has no letters or digits' }),
} as const;

const fields = LIST_FIELDS;

/** Input of createList. */
export const CreateListInputSchema = z.object({ name: fields.name, type: fields.type, policy: notGiven(fields.policy) }).strict();

/** Input of updateList: at least one field. */
export const UpdateListInputSchema = z
  .object({ name: notGiven(fields.name), type: notGiven(fields.type), policy: notGiven(fields.policy) })
  .strict()
  .refine((input) => Object.values(input).some((value) => value !== undefined), { message: 'give at least one of name, type, policy' });

/** Input of a face entry: an image, or a session whose selfie template is taken. */
export const FaceEntryInputSchema = z
  .object({ image: notGiven(fields.image), reason: notGiven(fields.reason), sessionId: notGiven(fields.sessionId) })
  .strict()
  .refine((input) => input.image !== undefined || input.sessionId !== undefined, {
    message: 'give image, or the id of a session with a selfie',
    path: ['image'],
  });

/** Input of a name entry. */
export const NameEntryInputSchema = z.object({ name: fields.entryName, reason: notGiven(fields.reason) }).strict();

/** Input of a document entry: the fields that identify one document. */
export const DocumentEntryInputSchema = z
  .object({
    country: fields.country,
    idType: fields.idType,
    documentNumber: fields.documentNumber,
    reason: notGiven(fields.reason),
  })
  .strict();

/** What createList accepts before validation: GraphQL's `CreateListInput` as is. */
export type CreateListInput = Unchecked<z.input<typeof CreateListInputSchema>>;
/** What updateList accepts before validation: GraphQL's `UpdateListInput` as is. */
export type UpdateListInput = Unchecked<z.input<typeof UpdateListInputSchema>>;
/** What addFaceEntry accepts before validation: GraphQL's `FaceListEntryInput` as is. */
export type FaceEntryInput = z.input<typeof FaceEntryInputSchema>;
/** What addNameEntry accepts before validation: GraphQL's `NameListEntryInput` as is. */
export type NameEntryInput = z.input<typeof NameEntryInputSchema>;
/** What addDocumentEntry accepts before validation: GraphQL's `DocumentListEntryInput` as is. */
export type DocumentEntryInput = z.input<typeof DocumentEntryInputSchema>;
