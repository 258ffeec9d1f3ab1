import type { TestApp } from '../support/app.js';

/** A 16×16 JPEG as a data URI: the sandbox happy path for image fields, which decode like live ones. */
export const SANDBOX_IMAGE =
  'data:image/jpeg;base64,/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAQABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAP/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAAA//EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AKAFG//Z';

const SUBMIT_DOCUMENT = /* GraphQL */ `
  mutation ($sessionId: String!, $input: DocumentStepInput!) {
    submitDocument(sessionId: $sessionId, input: $input) {
      status
      steps {
        nodeType
        status
      }
    }
  }
`;
const SUBMIT_SELFIE = /* GraphQL */ `
  mutation ($sessionId: String!, $input: SelfieStepInput!) {
    submitSelfie(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;
const SUBMIT_AML = /* GraphQL */ `
  mutation ($sessionId: String!, $input: AmlStepInput!) {
    submitAmlData(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;

/** Credentials for one GraphQL call: an API key, or an end-user session token. */
export type Credential = { key: string } | { sessionToken: string };

/** Posts a GraphQL operation with either credential. */
export async function gql(
  testApp: TestApp,
  credential: Credential,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if ('key' in credential) headers['x-api-key'] = credential.key;
  else headers['x-session-token'] = credential.sessionToken;
  const response = await fetch(`${testApp.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: response.status, body: await response.json() };
}

/** The end-user token carried in a session URL. */
export function tokenOf(url: string): string {
  return new URL(url).searchParams.get('token') ?? '';
}

/** Creates a session over REST and returns its body (asserting nothing). */
export async function createSession(testApp: TestApp, key: string, body: Record<string, unknown>) {
  return testApp.rest('POST', '/v1/sessions', { key, body });
}

/** Inputs of the three standard_kyc steps, each overridable with sandbox magic values. */
export interface StandardSteps {
  imageFront?: string;
  selfie?: string;
  fullName?: string;
  document?: Record<string, unknown>;
}

/**
 * Drives a standard_kyc session through document, selfie and AML; returns the last step's status.
 * One person throughout: AML screens the document's name, so the document carries `fullName`
 * (and the AML step types the document's names when only those are given).
 */
export async function completeStandardKyc(
  testApp: TestApp,
  credential: Credential,
  sessionId: string,
  steps: StandardSteps = {},
): Promise<string> {
  const typedDocumentName = [steps.document?.firstName, steps.document?.lastName].filter(Boolean).join(' ');
  const fullName = steps.fullName ?? (typedDocumentName || 'Jane Example');
  const [firstName, ...lastNames] = fullName.split(' ');
  const document = await gql(testApp, credential, SUBMIT_DOCUMENT, {
    sessionId,
    input: {
      country: 'GB',
      idType: 'PASSPORT',
      imageFront: steps.imageFront ?? SANDBOX_IMAGE,
      firstName,
      ...(lastNames.length > 0 ? { lastName: lastNames.join(' ') } : {}),
      ...steps.document,
    },
  });
  if (document.body.errors) throw new Error(JSON.stringify(document.body.errors));
  if (document.body.data.submitDocument.status !== 'in_progress') return document.body.data.submitDocument.status;
  const selfie = await gql(testApp, credential, SUBMIT_SELFIE, { sessionId, input: { selfie: steps.selfie ?? SANDBOX_IMAGE } });
  if (selfie.body.errors) throw new Error(JSON.stringify(selfie.body.errors));
  if (selfie.body.data.submitSelfie.status !== 'in_progress') return selfie.body.data.submitSelfie.status;
  const aml = await gql(testApp, credential, SUBMIT_AML, { sessionId, input: { fullName } });
  if (aml.body.errors) throw new Error(JSON.stringify(aml.body.errors));
  return aml.body.data.submitAmlData.status;
}

export { SUBMIT_AML, SUBMIT_DOCUMENT, SUBMIT_SELFIE };
