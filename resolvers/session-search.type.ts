import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { SEARCH_FIELDS, type SearchField } from '../src/sessions/search.js';
import { SessionObject } from './session.type.js';

/** What a search hit matched on, as a GraphQL enum. */
export const SessionSearchFieldEnum = Object.fromEntries(SEARCH_FIELDS.map((field) => [field, field])) as Record<SearchField, SearchField>;
registerEnumType(SessionSearchFieldEnum, {
  name: 'SessionSearchField',
  description:
    'A field a session search matched: name (fuzzy), email, phone, document_number (exact, on keyed digests), session_id, vendor_data.',
});

/** One session a search found. */
@ObjectType('SessionSearchHit', { description: 'A session a search found, with what it matched on.' })
export class SessionSearchHitObject {
  @Field(() => SessionObject)
  session!: SessionObject;

  @Field(() => [SessionSearchFieldEnum], { description: 'The fields the query matched, in a fixed order.' })
  matchedOn!: SearchField[];
}
