import { Field, Float, InputType, Int, registerEnumType } from 'type-graphql';
import { CAPTURE_SOURCES } from '../src/sessions/capture-integrity.js';

/** How an image reached the page, as a GraphQL enum. */
export const CaptureSourceEnum = Object.fromEntries(CAPTURE_SOURCES.map((source) => [source, source])) as {
  [K in (typeof CAPTURE_SOURCES)[number]]: K;
};
registerEnumType(CaptureSourceEnum, { name: 'CaptureSource', description: 'camera: taken through the camera API; upload: a file.' });

/** How one image of a step was made (docs/capture-integrity.md); the hosted flow sends it, API integrators may leave it out. */
@InputType({ description: 'How one image was made: the camera (with its nonce, label and rates) or an upload.' })
export class CaptureInput {
  @Field(() => CaptureSourceEnum)
  source!: (typeof CAPTURE_SOURCES)[number];

  @Field(() => String, { nullable: true, description: 'The nonce issueCaptureNonce gave for this capture (camera only).' })
  nonce?: string;

  @Field(() => String, { nullable: true, description: "The camera's device label (MediaStreamTrack.label)." })
  deviceLabel?: string;

  @Field(() => Float, { nullable: true, description: "The camera's frame rate (the track's settings), frames per second." })
  frameRate?: number;

  @Field(() => Float, { nullable: true, description: 'The rate frames actually arrived at before the shot, frames per second.' })
  measuredFrameRate?: number;
}

/** One camera frame of an active-liveness burst. */
@InputType({ description: 'One frame of the head-turn burst.' })
export class LivenessFrameInput {
  @Field(() => String, { description: 'data:image/jpeg;base64,... (at most 1 MB).' })
  image!: string;

  @Field(() => String, { description: 'What the page asked for while it took the frame: neutral, left, right or up.' })
  phase!: string;

  @Field(() => Int, { description: 'Milliseconds since the page received the challenge.' })
  atMs!: number;
}

/** The active-liveness part of a selfie step (docs/hosted-flow.md "Active liveness"). */
@InputType({ description: 'The answer to a startLivenessChallenge: the frame burst, or the non-motion alternative.' })
export class ActiveLivenessInput {
  @Field(() => String, { description: "The challenge's nonce." })
  nonce!: string;

  @Field(() => [LivenessFrameInput], {
    nullable: true,
    description: 'The neutral frame, then the frames of each move in order (at most 12).',
  })
  frames?: LivenessFrameInput[];

  @Field(() => Boolean, { nullable: true, description: 'The person cannot turn their head: the selfie goes to review instead.' })
  alternative?: boolean;
}
