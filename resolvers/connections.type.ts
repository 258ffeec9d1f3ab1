import { Field, ObjectType } from 'type-graphql';
import type { ApiKeyEnvironment } from '../entities/api-key.entity.js';
import { Connection, type ConnectionPage } from './connection.js';
import { EnvironmentEnum } from './enums.js';
import { ListEntryObject } from './list.type.js';
import { SessionNoteObject } from './note.type.js';
import { OperatorObject } from './operator.type.js';
import { UnixTimeScalar } from './scalars.js';
import { SessionObject, StatusChangeObject } from './session.type.js';
import { WebhookDeliveryObject, WebhookDestinationObject } from './webhook.type.js';

/** An API key as an admin sees it in the console: never the key itself, only its prefix. */
@ObjectType('ApiKey', { description: 'An API key of the tenant: its visible prefix and dates; the key itself is never shown again.' })
export class ApiKeyObject {
  @Field(() => String)
  id!: string;

  @Field(() => String, { description: 'The first characters of the key (`idv_live_1a2b3c4d`), to tell keys apart.' })
  prefix!: string;

  @Field(() => String, { description: 'A label given at issue; empty when none was.' })
  name!: string;

  @Field(() => EnvironmentEnum)
  environment!: ApiKeyEnvironment;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  createdAt!: number;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds; null while the key works.' })
  revokedAt!: number | null;

  @Field(() => UnixTimeScalar, {
    nullable: true,
    description:
      'When the key was last used (Unix seconds; other instances write theirs every API_KEY_USAGE_FLUSH_SECONDS); null if never.',
  })
  lastUsedAt!: number | null;

  @Field(() => String, { nullable: true, description: 'The client address of that last use.' })
  lastUsedAddress!: string | null;
}

/** The audit trail of a session, a page at a time. */
export const StatusChangeConnection = Connection(StatusChangeObject, 'StatusChange', {
  description: "A page of a session's audit trail (status changes), oldest first.",
  totalCount: 'Status changes of the session, all pages together.',
});
/** A page of status changes as resolvers return it. */
export type StatusChangeConnection = ConnectionPage<StatusChangeObject>;

/** The notes of a session, a page at a time. */
export const SessionNoteConnection = Connection(SessionNoteObject, 'SessionNote', {
  description: "A page of a session's notes, oldest first.",
  totalCount: 'Notes on the session, all pages together.',
});
/** A page of notes as resolvers return it. */
export type SessionNoteConnection = ConnectionPage<SessionNoteObject>;

/** The entries of a list, a page at a time. */
export const ListEntryConnection = Connection(ListEntryObject, 'ListEntry', {
  description: 'A page of the entries of a list, oldest first.',
  totalCount: 'Entries in the list, all pages together.',
});
/** A page of list entries as resolvers return it. */
export type ListEntryConnection = ConnectionPage<ListEntryObject>;

/** The webhook destinations, a page at a time. */
export const WebhookDestinationConnection = Connection(WebhookDestinationObject, 'WebhookDestination', {
  description: 'A page of the webhook destinations of the calling tenant and environment, oldest first.',
  totalCount: 'Destinations of the tenant in the environment, all pages together.',
});
/** A page of destinations as resolvers return it. */
export type WebhookDestinationConnection = ConnectionPage<WebhookDestinationObject>;

/** The delivery log, a page at a time. */
export const WebhookDeliveryConnection = Connection(WebhookDeliveryObject, 'WebhookDelivery', {
  description: 'A page of webhook deliveries (each with its attempts), newest first.',
});
/** A page of deliveries as resolvers return it. */
export type WebhookDeliveryConnection = ConnectionPage<WebhookDeliveryObject>;

/** The operators of the tenant, a page at a time. */
export const OperatorConnection = Connection(OperatorObject, 'Operator', {
  description: 'A page of the operators of the tenant, oldest first.',
  totalCount: 'Operators of the tenant, all pages together.',
});
/** A page of operators as resolvers return it. */
export type OperatorConnection = ConnectionPage<OperatorObject>;

/** The API keys of the tenant in one environment, a page at a time. */
export const ApiKeyConnection = Connection(ApiKeyObject, 'ApiKey', {
  description: 'A page of the API keys of the tenant in the environment of the sign-in, oldest first.',
  totalCount: 'Keys of the tenant in the environment (revoked ones too), all pages together.',
});
/** A page of API keys as resolvers return it. */
export type ApiKeyConnection = ConnectionPage<ApiKeyObject>;

/** The review queue, a page at a time. */
export const ReviewQueueConnection = Connection(SessionObject, 'ReviewQueue', {
  description: 'A page of the in-review sessions of the calling tenant and environment, longest waiting first.',
  totalCount: 'Sessions in review, all pages together.',
});
/** A page of the review queue as resolvers return it. */
export type ReviewQueueConnection = ConnectionPage<SessionObject>;
