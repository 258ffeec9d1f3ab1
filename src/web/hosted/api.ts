/** The public GraphQL API, called with the session token of the link (x-session-token). */

/** A GraphQL error as the server sends it. */
export interface ApiProblem {
  message: string;
  code?: string;
  fieldErrors?: { field: string; code: string; message: string }[];
}

/** An error the server answered (a refusal, not a transport failure). */
export class ApiError extends Error {
  constructor(readonly problem: ApiProblem) {
    super(problem.message);
  }
}

/** Runs one operation against /graphql with the session token. */
export async function graphql<T>(token: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-token': token },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: { message: string; extensions?: Record<string, any> }[] };
  if (body.errors?.length) {
    const [first] = body.errors;
    throw new ApiError({ message: first.message, code: first.extensions?.code, fieldErrors: first.extensions?.fieldErrors });
  }
  return body.data as T;
}

/** One step of the session as the page sees it. */
export interface Step {
  nodeType: string;
  status: string;
  required: boolean;
  resubmissionReason?: string | null;
  attemptsRemaining?: number;
  /** The theme of what the person reads for a retake (src/domain/reasons.ts END_USER_MESSAGES). */
  retakeMessage?: string | null;
  /** The reviewer's note to the person, on a reviewer's retake. */
  retakeNote?: string | null;
}

/** The hostedFlow query's answer. */
export interface HostedFlow {
  sessionId: string;
  status: string;
  expiresAt: number;
  language: string | null;
  defaultLanguage: string;
  displayName: string;
  logo: string | null;
  primaryColor: string;
  privacyUrl: string | null;
  allowedEmbedOrigins: string[];
  redirectUrl: string | null;
  steps: Step[];
  documentTypes: { idType: string; sides: number; countries: string[] | null }[];
  expectedDetails: Record<string, string> | null;
  documentRead: { firstName: string | null; lastName: string | null; dateOfBirth: string | null; nationality: string | null } | null;
  /** When declined: the theme of the sentence the person reads. */
  outcomeMessage: string | null;
}

export const HOSTED_FLOW = `query ($sessionId: String!) { hostedFlow(sessionId: $sessionId) {
  sessionId status expiresAt language defaultLanguage displayName logo primaryColor privacyUrl allowedEmbedOrigins redirectUrl
  steps { nodeType status required resubmissionReason attemptsRemaining retakeMessage retakeNote } documentTypes { idType sides countries }
  expectedDetails documentRead { firstName lastName dateOfBirth nationality } outcomeMessage } }`;

const PROGRESS = '{ status steps { nodeType status required } }';

/** The submit mutation of each step, with its input type. */
export const SUBMIT = {
  document_verification: `mutation ($sessionId: String!, $input: DocumentStepInput!) { submitDocument(sessionId: $sessionId, input: $input) ${PROGRESS} }`,
  biometric_kyc: `mutation ($sessionId: String!, $input: SelfieStepInput!) { submitSelfie(sessionId: $sessionId, input: $input) ${PROGRESS} }`,
  aml_screening: `mutation ($sessionId: String!, $input: AmlStepInput!) { submitAmlData(sessionId: $sessionId, input: $input) ${PROGRESS} }`,
  proof_of_address: `mutation ($sessionId: String!, $input: ProofOfAddressStepInput!) { submitProofOfAddress(sessionId: $sessionId, input: $input) ${PROGRESS} }`,
  business_registry: `mutation ($sessionId: String!, $input: BusinessRegistryStepInput!) { submitBusinessRegistry(sessionId: $sessionId, input: $input) ${PROGRESS} }`,
  phone_confirm: `mutation ($sessionId: String!, $input: PhoneConfirmStepInput!) { confirmPhoneCode(sessionId: $sessionId, input: $input) ${PROGRESS} }`,
  phone_request: `mutation ($sessionId: String!, $phone: String) { requestPhoneCode(sessionId: $sessionId, phone: $phone) { sentTo expiresAt } }`,
} as const;
