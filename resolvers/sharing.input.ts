import { Field, InputType } from 'type-graphql';

/** Input of importSharedSession (the body of `POST /v1/sessions/import-shared`). */
@InputType()
export class ImportSharedSessionInput {
  @Field(() => String, { description: 'Token from the originating tenant.' })
  shareToken!: string;

  @Field(() => Boolean, { description: 'true keeps the original status; false sets in_review.' })
  trustReview!: boolean;

  @Field(() => String, { description: "The caller's workflow the new session belongs to." })
  workflowId!: string;

  @Field(() => String, { nullable: true, description: "The caller's own user id; default `imported:<share token id>`." })
  vendorData?: string | null;
}
