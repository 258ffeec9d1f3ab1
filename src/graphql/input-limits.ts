import {
  GraphQLID,
  GraphQLString,
  Kind,
  TypeInfo,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type ValueNode,
} from 'graphql';
import { validationError, type FieldError } from '../shared/errors.js';
import { IMAGE_MAX_LENGTH } from '../shared/node-input-schemas.js';
import { ID_MAX_LENGTH, findUnstorableText, textProblem } from '../shared/validation.js';

/** Longest string argument or input field without a limit of its own, in characters (reasons, URLs, tokens, names). */
export const STRING_ARGUMENT_MAX_LENGTH = 4096;
/** Longest base64 NFC data group (EF.SOD with its certificate, EF.DG1), in characters. */
const NFC_DATA_GROUP_MAX_LENGTH = 200_000;

/**
 * Fields that legitimately carry more than STRING_ARGUMENT_MAX_LENGTH: images as data URIs
 * (the body limit bounds them too) and NFC data groups. Keyed by argument or input field name.
 */
const LONG_STRING_FIELDS: Readonly<Record<string, number>> = {
  imageFront: IMAGE_MAX_LENGTH,
  imageBack: IMAGE_MAX_LENGTH,
  selfie: IMAGE_MAX_LENGTH,
  documentImage: IMAGE_MAX_LENGTH,
  image: IMAGE_MAX_LENGTH,
  dg2: IMAGE_MAX_LENGTH,
  sod: NFC_DATA_GROUP_MAX_LENGTH,
  dg1: NFC_DATA_GROUP_MAX_LENGTH,
};

/** The length limit of a string argument or input field: ids (`id`, `…Id`) ≤ ID_MAX_LENGTH, images their own, the rest STRING_ARGUMENT_MAX_LENGTH. */
export function stringMaxLength(name: string): number {
  if (name in LONG_STRING_FIELDS) return LONG_STRING_FIELDS[name];
  if (name === 'id' || name.endsWith('Id')) return ID_MAX_LENGTH;
  return STRING_ARGUMENT_MAX_LENGTH;
}

/** Checks one argument value against its declared input type, collecting problems with their paths. */
function inspectValue(value: unknown, type: GraphQLInputType, name: string, path: string, problems: FieldError[]): void {
  if (value === null || value === undefined) return;
  if (isNonNullType(type)) return inspectValue(value, type.ofType, name, path, problems);
  if (isListType(type)) {
    // A single value where a list is expected is coerced to a list of one.
    if (!Array.isArray(value)) return inspectValue(value, type.ofType, name, path, problems);
    value.forEach((item, index) => inspectValue(item, type.ofType, name, `${path}[${index}]`, problems));
    return;
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value)) return;
    const fields = type.getFields();
    for (const [key, child] of Object.entries(value)) {
      // Unknown fields are refused by GraphQL's own coercion; here only declared ones matter.
      const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
      if (field) inspectValue(child, field.type, key, `${path}.${key}`, problems);
    }
    return;
  }
  if (isEnumType(type)) return;
  if (type === GraphQLString || type === GraphQLID) {
    if (typeof value !== 'string') return;
    const max = stringMaxLength(name);
    if (value.length > max) {
      problems.push({ field: path, code: 'too_long', message: `${path} must be at most ${max} characters` });
      return;
    }
    const problem = textProblem(value);
    if (problem) problems.push({ field: path, code: 'invalid_text', message: `${path} ${problem}` });
    return;
  }
  // JSON scalars (metadata): every key and string storable, nesting bounded.
  if (isScalarType(type) && typeof value === 'object') problems.push(...findUnstorableText(value, path));
}

/**
 * Refuses, before anything executes, every argument of an operation (literal or variable) that
 * no resolver could accept: an over-long string (ids ≤ ID_MAX_LENGTH), NUL or an unpaired
 * surrogate, or JSON nested too deep. A 400 VALIDATION_FAILED naming each field
 * (`input.firstName`). GraphQL over HTTP and WebSocket and the REST facade's operations all pass here.
 */
export function assertAcceptableInputs(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): void {
  const problems: FieldError[] = [];
  for (const { name, type, value: node } of argumentsOf(schema, document)) {
    const value = node.kind === Kind.VARIABLE ? variables?.[node.name.value] : valueFromASTUntyped(node, variables ?? undefined);
    inspectValue(value, type, name, name, problems);
  }
  if (problems.length > 0) throw validationError(problems);
}

/** One argument an operation's document passes: its name, declared type and the literal or variable given. */
interface ArgumentSite {
  name: string;
  type: GraphQLInputType;
  value: ValueNode;
}

/** The arguments of each document, per schema: the REST facade's and clients' repeated documents are walked once. */
const argumentSites = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, ArgumentSite[]>>();

/** Every argument of `document` with its declared type (a walk with type information, once per document and schema). */
function argumentsOf(schema: GraphQLSchema, document: DocumentNode): ArgumentSite[] {
  let byDocument = argumentSites.get(schema);
  if (!byDocument) {
    byDocument = new WeakMap();
    argumentSites.set(schema, byDocument);
  }
  let sites = byDocument.get(document);
  if (sites) return sites;
  const found: ArgumentSite[] = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const argument = typeInfo.getArgument();
        if (argument) found.push({ name: node.name.value, type: argument.type, value: node.value });
      },
    }),
  );
  sites = found;
  byDocument.set(document, sites);
  return sites;
}
