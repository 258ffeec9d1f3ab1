import { Field, Float, Int, ObjectType } from 'type-graphql';
import { UnixTimeScalar } from './scalars.js';

/** Where a face is in a kept image, as fractions of the upright image. */
@ObjectType('EvidenceFace', { description: "A face's box as fractions (0–1) of the upright image's width and height." })
export class EvidenceFaceObject {
  @Field(() => Float)
  x!: number;

  @Field(() => Float)
  y!: number;

  @Field(() => Float)
  width!: number;

  @Field(() => Float)
  height!: number;
}

/** One image or document the end user submitted, kept encrypted for the tenant's retention period. */
@ObjectType('Evidence', {
  description: 'A submitted image or document, kept encrypted; its url works for 5 minutes and every opening is audited.',
})
export class EvidenceObject {
  @Field(() => String)
  id!: string;

  @Field(() => String, {
    description: 'document_front, document_back, document_portrait (cut from the front around its face), selfie or proof_of_address.',
  })
  kind!: string;

  @Field(() => String, { description: 'The step it was submitted to.' })
  nodeType!: string;

  @Field(() => String, { description: 'image/jpeg, image/png, image/webp or application/pdf.' })
  contentType!: string;

  @Field(() => Int)
  byteLength!: number;

  @Field(() => Int, {
    description: 'Which submission of its kind in the session it is, from 1: every attempt of a step is kept, not only the latest.',
  })
  attempt!: number;

  @Field(() => EvidenceFaceObject, {
    nullable: true,
    description: 'Where the face is, for selfies and document portraits: the console shows both faces at one size. Null otherwise.',
  })
  face!: EvidenceFaceObject | null;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  createdAt!: number;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds at which it is purged (the retention period).' })
  expiresAt!: number;

  @Field(() => String, { description: 'Signed, same-origin path of the file for the signed-in operator; works for 5 minutes.' })
  url!: string;
}
