import { Field, ObjectType } from 'type-graphql';
import type { ApiKeyEnvironment } from '../entities/api-key.entity.js';
import { EnvironmentEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';

/** An API key as listed: its visible prefix, never the secret. */
@ObjectType('ApiKey', {
  description: "One of the organisation's API keys, by its visible prefix; the secret is shown only when it is created.",
})
export class ApiKeyObject {
  @Field(() => String)
  id!: string;

  @Field(() => String, { description: 'What the key is for, as its creator named it.' })
  name!: string;

  @Field(() => String, { description: 'The first characters of the key (idv_live_1a2b3c4d), safe to show.' })
  prefix!: string;

  @Field(() => EnvironmentEnum)
  environment!: ApiKeyEnvironment;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  createdAt!: number;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds; null while the key works.' })
  revokedAt!: number | null;
}

/** A key just created: the whole secret, this once. */
@ObjectType('CreatedApiKey', { description: 'A new API key with its secret, shown this once: only its hash is kept.' })
export class CreatedApiKeyObject {
  @Field(() => ApiKeyObject)
  apiKey!: ApiKeyObject;

  @Field(() => String, { description: 'The whole key, for the x-api-key header.' })
  secret!: string;
}
