import { Field, ObjectType } from 'type-graphql';
import { ApiKeyObject } from './connections.type.js';

/** A key just created: the whole secret, this once. */
@ObjectType('CreatedApiKey', { description: 'A new API key with its secret, shown this once: only its hash is kept.' })
export class CreatedApiKeyObject {
  @Field(() => ApiKeyObject)
  apiKey!: ApiKeyObject;

  @Field(() => String, { description: 'The whole key, for the x-api-key header.' })
  secret!: string;
}
