import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, Int, registerEnumType } from 'type-graphql';
import type { SessionStatus } from '../src/domain/types.js';
import { SessionStatusEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';
import { ActiveLivenessInput, CaptureInput } from './capture.input.js';

/** The description of a step's `captures` field. */
const CAPTURES = 'How each image was made, in the order of the images (the hosted flow sends it); none means uploaded.';

/** Contact details that pre-fill OTP steps. */
@InputType()
export class ContactDetailsInput {
  @Field(() => String, { nullable: true })
  email?: string;

  @Field(() => String, { nullable: true, description: 'International format; normalised to E.164.' })
  phone?: string;
}

/** Expected identity; a difference produces mismatch warnings that send the session to review. */
@InputType()
export class ExpectedDetailsInput {
  @Field(() => String, { nullable: true })
  firstName?: string;

  @Field(() => String, { nullable: true })
  lastName?: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD.' })
  dateOfBirth?: string;

  @Field(() => String, { nullable: true, description: 'ISO-2.' })
  country?: string;
}

/** Input of createSession. */
@InputType()
export class CreateSessionInput {
  @Field(() => String)
  workflowId!: string;

  @Field(() => String, { description: "The caller's own user id; idempotency key together with workflowId." })
  vendorData!: string;

  @Field(() => String, { nullable: true, description: 'Per-session webhook URL.' })
  callback?: string;

  @Field(() => String, {
    nullable: true,
    description:
      "Where the hosted flow sends the browser at the end, with session_id and status added; its origin must be in the flow settings' allowedRedirectOrigins (REDIRECT_NOT_ALLOWED otherwise).",
  })
  redirectUrl?: string;

  @Field(() => String, { nullable: true, description: 'Language of the hosted flow: en, fr, de or es.' })
  language?: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Opaque JSON echoed back on the decision.' })
  metadata?: Record<string, unknown>;

  @Field(() => ContactDetailsInput, { nullable: true })
  contactDetails?: ContactDetailsInput;

  @Field(() => ExpectedDetailsInput, { nullable: true })
  expectedDetails?: ExpectedDetailsInput;
}

/** Filters of the session listing. */
@InputType()
export class SessionFilterInput {
  @Field(() => [SessionStatusEnum], { nullable: true })
  statuses?: SessionStatus[];

  @Field(() => String, { nullable: true })
  workflowId?: string;

  @Field(() => String, { nullable: true })
  vendorData?: string;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds (or ISO 8601), inclusive.' })
  createdAfter?: number;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds (or ISO 8601), exclusive.' })
  createdBefore?: number;
}

/** A reviewer's verdict. */
export const ReviewDecisionEnum = { approved: 'approved', declined: 'declined' } as const;
registerEnumType(ReviewDecisionEnum, { name: 'ReviewDecision', description: 'What a reviewer decides for an in-review session.' });

/** Chip data read by the end user's phone, for NFC passive authentication. */
@InputType()
export class NfcChipInput {
  @Field(() => String, { description: 'EF.SOD, base64.' })
  sod!: string;

  @Field(() => String, { description: 'EF.DG1 (the MRZ), base64.' })
  dg1!: string;

  @Field(() => String, { nullable: true, description: 'EF.DG2 (the portrait), base64.' })
  dg2?: string;
}

/** ID document step. */
@InputType()
export class DocumentStepInput {
  @Field(() => String, { description: 'Issuing country, ISO-2.' })
  country!: string;

  @Field(() => String, { description: 'PASSPORT, DRIVERS_LICENSE, NATIONAL_ID, RESIDENCE_PERMIT, ...' })
  idType!: string;

  @Field(() => String, { description: 'data:image/jpeg;base64,... (sandbox keys also take sandbox:<outcome> tokens).' })
  imageFront!: string;

  @Field(() => String, { nullable: true, description: 'Required for two-sided documents.' })
  imageBack?: string;

  @Field(() => Boolean, { nullable: true })
  enableNfc?: boolean;

  @Field(() => NfcChipInput, { nullable: true, description: 'Chip data; verified (SOD signature, data-group hashes, MRZ) when sent.' })
  nfc?: NfcChipInput;

  @Field(() => String, { nullable: true })
  documentNumber?: string;

  @Field(() => String, { nullable: true })
  firstName?: string;

  @Field(() => String, { nullable: true })
  lastName?: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD.' })
  dateOfBirth?: string;

  @Field(() => [CaptureInput], { nullable: true, description: CAPTURES })
  captures?: CaptureInput[];
}

/** Selfie step. */
@InputType()
export class SelfieStepInput {
  @Field(() => String, { description: 'data:image/jpeg;base64,... (or a sandbox token).' })
  selfie!: string;

  @Field(() => [CaptureInput], { nullable: true, description: CAPTURES })
  captures?: CaptureInput[];

  @Field(() => ActiveLivenessInput, { nullable: true, description: 'Required by workflows with liveness active: the head-turn burst.' })
  liveness?: ActiveLivenessInput;
}

/** Personal data for AML screening. */
@InputType()
export class AmlStepInput {
  @Field(() => String)
  fullName!: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD.' })
  dateOfBirth?: string;

  @Field(() => String, { nullable: true, description: 'ISO-2.' })
  country?: string;
}

/** Phone code confirmation. */
@InputType()
export class PhoneConfirmStepInput {
  @Field(() => String, { description: 'The 6-digit code.' })
  code!: string;

  @Field(() => String, { nullable: true, description: 'The number the code went to; defaults to the one it was requested for.' })
  phone?: string;
}

/** Proof-of-address step. */
@InputType()
export class ProofOfAddressStepInput {
  @Field(() => String, { description: 'data:image/jpeg|image/png|application/pdf;base64,... (or a sandbox token).' })
  documentImage!: string;

  @Field(() => String, { nullable: true })
  expectedName?: string;

  @Field(() => String, { nullable: true, description: 'ISO-2.' })
  country?: string;

  @Field(() => Int, { nullable: true, description: 'Days; default 90.' })
  maxAgeDays?: number;
}

/** Business registry step. */
@InputType()
export class BusinessRegistryStepInput {
  @Field(() => String)
  companyName!: string;

  @Field(() => String)
  registrationNumber!: string;

  @Field(() => String, { description: 'ISO-2.' })
  country!: string;
}
