import { Field, InputType } from 'type-graphql';
import type { WebhookVersion } from '../entities/webhook.entity.js';
import { WebhookVersionEnum } from './webhook.type.js';

/** Input of createWebhookDestination. */
@InputType()
export class CreateWebhookDestinationInput {
  @Field(() => String, { description: 'HTTPS endpoint (plain HTTP only to loopback when the server allows it for development).' })
  url!: string;

  @Field(() => WebhookVersionEnum, { nullable: true, description: 'Default v3.' })
  version?: WebhookVersion;

  @Field(() => [String], { nullable: true, description: 'Event kinds to receive; omit for all.' })
  events?: string[];
}

/** Input of updateWebhookDestination: give at least one field. */
@InputType()
export class UpdateWebhookDestinationInput {
  @Field(() => String, { nullable: true })
  url?: string;

  @Field(() => WebhookVersionEnum, { nullable: true })
  version?: WebhookVersion;

  @Field(() => [String], { nullable: true, description: 'New subscription; an explicit null subscribes to all events.' })
  events?: string[] | null;

  @Field(() => Boolean, { nullable: true, description: 'Turns the destination on or off without deleting it.' })
  active?: boolean;

  @Field(() => Boolean, { nullable: true, description: 'true returns a new secret; the old one signs nothing from then on.' })
  rotateSecret?: boolean;
}
