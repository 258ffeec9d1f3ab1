import { z } from 'zod';
import { NODE_STATUSES, NODE_TYPES, SESSION_STATUSES } from '../../domain/types.js';
import {
  ConfirmPhoneCodeStepDocument,
  RequestPhoneCodeStepDocument,
  SubmitAmlStepDocument,
  SubmitBusinessRegistryStepDocument,
  SubmitDocumentStepDocument,
  SubmitProofOfAddressStepDocument,
  SubmitSelfieStepDocument,
  VerificationStepsDocument,
  type VerificationProgressFieldsFragment,
} from '../../graphql/generated/operations.js';
import { NODE_INPUT_FIELDS as fields } from '../../shared/node-input-schemas.js';
import { defineRoute } from '../route.js';

/** The end user's view of a session: its status and each step of its workflow, in workflow order. */
export const VerificationProgressJson = z.object({
  session_id: z.string(),
  status: z.enum(SESSION_STATUSES),
  expires_at: z.number().int(),
  steps: z.array(
    z.object({
      node_type: z.enum(NODE_TYPES),
      description: z.string(),
      required: z.boolean(),
      status: z.enum(NODE_STATUSES),
      /** Why the step asks for a retake, while `resubmission_requested`. */
      resubmission_reason: z.string().optional(),
      attempts: z.number().int(),
      attempts_remaining: z.number().int(),
    }),
  ),
});

/** Shapes the end user's progress for REST. */
export function presentProgress(progress: VerificationProgressFieldsFragment): z.infer<typeof VerificationProgressJson> {
  return {
    session_id: progress.sessionId,
    status: progress.status,
    expires_at: progress.expiresAt,
    steps: progress.steps.map((step) => ({
      node_type: step.nodeType,
      description: step.description,
      required: step.required,
      status: step.status as (typeof NODE_STATUSES)[number],
      ...(step.resubmissionReason ? { resubmission_reason: step.resubmissionReason } : {}),
      attempts: step.attempts,
      attempts_remaining: step.attemptsRemaining,
    })),
  };
}

const SessionParams = z.object({ session_id: z.string().min(1).max(100) });

// Step bodies in the spec's snake_case, from the node input field rules (the service validates the camelCase input).
const DocumentStepBody = z
  .object({
    country: fields.country,
    id_type: fields.idType,
    image_front: fields.image,
    image_back: fields.image.nullable().optional(),
    enable_nfc: fields.flag.optional(),
    nfc: z.object({ sod: fields.nfcGroup, dg1: fields.nfcGroup, dg2: fields.nfcPortrait.optional() }).strict().optional(),
    document_number: fields.text.optional(),
    first_name: fields.text.optional(),
    last_name: fields.text.optional(),
    date_of_birth: fields.dateOfBirth.optional(),
  })
  .strict();
const SelfieStepBody = z.object({ selfie: fields.image }).strict();
const AmlStepBody = z
  .object({ full_name: fields.text, date_of_birth: fields.dateOfBirth.optional(), country: fields.country.optional() })
  .strict();
const ProofOfAddressStepBody = z
  .object({
    document_image: fields.image,
    expected_name: fields.text.optional(),
    country: fields.country.optional(),
    max_age_days: fields.maxAgeDays.optional(),
  })
  .strict();
const BusinessRegistryStepBody = z
  .object({ company_name: fields.text, registration_number: fields.text, country: fields.country })
  .strict();
const STEP_TAG = 'End-user steps';
const BY_EITHER = 'Called with the session token of the session `url` (x-session-token; that session only) or the API key.';

/**
 * The end user's steps over REST, the same operations as GraphQL's `verificationSteps` and
 * `submit…`: a backend or an app without GraphQL submits each node's input with the session token
 * of the session `url` (`x-session-token`) or the tenant's API key.
 */
export const stepRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/sessions/:session_id/steps',
    operationId: 'getVerificationSteps',
    summary: `The session's status and each step of its workflow with its status. ${BY_EITHER}`,
    tag: STEP_TAG,
    credential: 'api_key_or_session_token',
    operation: VerificationStepsDocument,
    params: SessionParams,
    variables: ({ params }) => ({ sessionId: params.session_id }),
    status: 200,
    present: (data) => presentProgress(data.verificationSteps),
    response: VerificationProgressJson,
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/steps/document',
    operationId: 'submitDocumentStep',
    summary: `Submits the ID document (front, and back for two-sided types; optional NFC chip data). ${BY_EITHER}`,
    tag: STEP_TAG,
    credential: 'api_key_or_session_token',
    operation: SubmitDocumentStepDocument,
    params: SessionParams,
    body: DocumentStepBody,
    variables: ({ params, body }) => ({
      sessionId: params.session_id,
      input: {
        country: body.country,
        idType: body.id_type,
        imageFront: body.image_front,
        imageBack: body.image_back,
        enableNfc: body.enable_nfc,
        nfc: body.nfc,
        documentNumber: body.document_number,
        firstName: body.first_name,
        lastName: body.last_name,
        dateOfBirth: body.date_of_birth,
      },
    }),
    status: 200,
    present: (data) => presentProgress(data.submitDocument),
    response: VerificationProgressJson,
    problems: ['invalid_transition', 'engines_busy', 'engine_timeout'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/steps/selfie',
    operationId: 'submitSelfieStep',
    summary: `Submits the selfie, matched against the document portrait. ${BY_EITHER}`,
    tag: STEP_TAG,
    credential: 'api_key_or_session_token',
    operation: SubmitSelfieStepDocument,
    params: SessionParams,
    body: SelfieStepBody,
    variables: ({ params, body }) => ({ sessionId: params.session_id, input: { selfie: body.selfie } }),
    status: 200,
    present: (data) => presentProgress(data.submitSelfie),
    response: VerificationProgressJson,
    problems: ['invalid_transition', 'engines_busy', 'engine_timeout'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/steps/aml',
    operationId: 'submitAmlStep',
    summary: `Submits personal data for AML screening (compared with the document's identity when the workflow reads one). ${BY_EITHER}`,
    tag: STEP_TAG,
    credential: 'api_key_or_session_token',
    operation: SubmitAmlStepDocument,
    params: SessionParams,
    body: AmlStepBody,
    variables: ({ params, body }) => ({
      sessionId: params.session_id,
      input: { fullName: body.full_name, dateOfBirth: body.date_of_birth, country: body.country },
    }),
    status: 200,
    present: (data) => presentProgress(data.submitAmlData),
    response: VerificationProgressJson,
    problems: ['invalid_transition'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/steps/proof-of-address',
    operationId: 'submitProofOfAddressStep',
    summary: `Submits a proof-of-address document (PDF or photo). ${BY_EITHER}`,
    tag: STEP_TAG,
    credential: 'api_key_or_session_token',
    operation: SubmitProofOfAddressStepDocument,
    params: SessionParams,
    body: ProofOfAddressStepBody,
    variables: ({ params, body }) => ({
      sessionId: params.session_id,
      input: {
        documentImage: body.document_image,
        expectedName: body.expected_name,
        country: body.country,
        maxAgeDays: body.max_age_days,
      },
    }),
    status: 200,
    present: (data) => presentProgress(data.submitProofOfAddress),
    response: VerificationProgressJson,
    problems: ['invalid_transition', 'engines_busy', 'engine_timeout'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/steps/business-registry',
    operationId: 'submitBusinessRegistryStep',
    summary: `Submits the company to look up in the business registry. ${BY_EITHER}`,
    tag: STEP_TAG,
    credential: 'api_key_or_session_token',
    operation: SubmitBusinessRegistryStepDocument,
    params: SessionParams,
    body: BusinessRegistryStepBody,
    variables: ({ params, body }) => ({
      sessionId: params.session_id,
      input: { companyName: body.company_name, registrationNumber: body.registration_number, country: body.country },
    }),
    status: 200,
    present: (data) => presentProgress(data.submitBusinessRegistry),
    response: VerificationProgressJson,
    problems: ['invalid_transition'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/steps/phone/code',
    operationId: 'requestPhoneCodeStep',
    summary: `Sends a one-time code to the phone given, or to the session's contact phone. ${BY_EITHER}`,
    tag: STEP_TAG,
    credential: 'api_key_or_session_token',
    operation: RequestPhoneCodeStepDocument,
    params: SessionParams,
    body: z.object({ phone: z.string().min(1).max(40).optional() }).strict(),
    variables: ({ params, body }) => ({ sessionId: params.session_id, phone: body.phone }),
    status: 200,
    present: (data) => ({ sent_to: data.requestPhoneCode.sentTo, expires_at: data.requestPhoneCode.expiresAt }),
    response: z.object({ sent_to: z.string(), expires_at: z.number().int() }),
    problems: ['invalid_transition'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/steps/phone/confirm',
    operationId: 'confirmPhoneCodeStep',
    summary: `Confirms the one-time code sent to the phone. ${BY_EITHER}`,
    tag: STEP_TAG,
    credential: 'api_key_or_session_token',
    operation: ConfirmPhoneCodeStepDocument,
    params: SessionParams,
    body: z.object({ code: fields.code, phone: z.string().min(1).max(40).optional() }).strict(),
    variables: ({ params, body }) => ({ sessionId: params.session_id, input: { code: body.code, phone: body.phone } }),
    status: 200,
    present: (data) => presentProgress(data.confirmPhoneCode),
    response: VerificationProgressJson,
    problems: ['invalid_transition', 'otp_invalid', 'otp_expired'],
  }),
];
