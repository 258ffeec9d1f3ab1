import { createHash } from 'node:crypto';
import { ERROR_CATALOGUE, type ErrorCode } from '../shared/errors.js';

/**
 * Examples of the OpenAPI document: one request and one answer per operation, one payload per
 * webhook event and version, one problem per error code. They tell one story (Acme's live
 * application verifies user-42 through standard_kyc, shares the result with a partner, screens
 * lists and receives webhooks), so ids, times and secrets agree from one operation to the next.
 * The shapes come from real answers of the service; test/integrator/openapi.test.ts validates
 * every example against its schema. A data file, longer than ~400 lines on purpose: one story
 * reads best in one place.
 */

/** Ids shared by the examples, so that a session created in one example is the one read in the next. */
const ID = {
  application: '60b5c530-e5e3-4249-acd7-4457b1acb842',
  partnerApplication: 'c2d4f6a8-1b3e-4c5d-9e7f-0a1b2c3d4e5f',
  apiKey: '9d9b2976-caf9-4de8-bfe2-ef4438c8c9aa',
  session: '5b1e0c9e-2f7a-4a8e-9d51-0f7f6f1c2b3a',
  reviewedSession: '8a9e2a5b-028e-4368-b43f-00c8033bdd85',
  kybSession: 'a3cb3fc2-d834-45a2-83b1-a8b6aa9de4f4',
  importedSession: '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f',
  workflow: 'a473110a-53f4-4b25-a00e-a541edbfa2b3',
  faceList: '05ed3546-aecf-4e6a-85f9-d980f49e58c5',
  documentList: '68bf4776-2b15-4501-b13c-690a203999b9',
  nameList: '182ff59f-e5bb-4313-b521-355f279bfb7b',
  customList: '4f0f1bb8-b25f-409a-b269-32750239b9ca',
  nameEntry: '76a8a6ef-ac33-4666-94ad-e70244a3262e',
  documentEntry: '6ab0cb80-1d86-4a93-85e9-c0af5900a943',
  faceEntry: '3e1d9c7b-5a2f-4e8d-b6c4-0f9a8e7d6c5b',
  destination: '945be836-da42-4549-83dc-295dd8cb8628',
  delivery: 'bb4b2fed-0854-4b5c-8082-665894361b7f',
  firstAttempt: 'e7c1a2b3-4d5e-4f60-8a9b-0c1d2e3f4a5b',
  secondAttempt: 'f8d2b3c4-5e6f-4a71-9bac-1d2e3f4a5b6c',
  statusEvent: '0f4d3a52-8a55-4d2b-9a55-8f3f2f0a7c11',
  revokedEvent: '7d0c2b8e-11a4-4a57-b3e2-52c1d7e0a9f4',
  resubmissionEvent: '3c2f7e0a-58f1-4c1b-9f0e-2b6d5e0a7c11',
  testDelivery: 'd2a9c1f0-3e4b-4c5d-8e6f-7a8b9c0d1e2f',
  serviceToken: '62a6b5e2-5c50-47ff-bee1-a23e658624ae',
  reviewedServiceToken: '55870ef3-7b09-42a4-a732-e55982b2f3a0',
  importedServiceToken: '4a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d',
  shareToken: '1c9b8a7f-6e5d-4c3b-a291-8f7e6d5c4b3a',
  serviceFee: '2d0c9b8a-7f6e-4d5c-b3a2-9180f7e6d5c4',
  originatorFee: '3e1d0c9b-8a7f-4e6d-a4b3-0291f8e7d6c5',
  aml: 'b85acd97-f73b-496b-ac61-ce2d2a9c3c53',
  poa: 'cedc597f-1c98-48e3-9050-b4941de44fad',
  idVerification: '2b695764-975d-44b2-aaa4-a4b6aba33220',
  signingKey: 'live-bb9dddd8-fefc-450c-8d70-b90787a43287',
  note: '6d1f3b2a-9c8e-4f7d-a6b5-c4d3e2f1a0b9',
} as const;

/** Unix seconds of the story: the session is created at T, everything else happens a few seconds later. */
const T = 1795554755;
const SESSION_LIFETIME_SECONDS = 7 * 24 * 3600;
const SERVICE_TOKEN_LIFETIME_SECONDS = 365 * 24 * 3600;
const PUBLIC_URL = 'https://kyc.acme.example';

/** A whole 16×16 JPEG as a data URI: images must decode, so an example that can be sent as is carries a real one. */
const IMAGE =
  'data:image/jpeg;base64,/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAQABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAP/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAAA//EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AKAFG//Z';

/** Bytes derived from a label, encoded: example secrets and tokens of the real length that stay the same from build to build. */
function exampleBytes(label: string, bytes: number, encoding: 'base64' | 'base64url'): string {
  return createHash('sha512').update(label).digest().subarray(0, bytes).toString(encoding);
}

/** Standard Webhooks secrets as the service issues them: `whsec_` + base64 of 32 bytes. */
const DESTINATION_SECRET = `whsec_${exampleBytes('destination secret', 32, 'base64')}`;
const ROTATED_DESTINATION_SECRET = `whsec_${exampleBytes('rotated destination secret', 32, 'base64')}`;
const CALLBACK_SECRET = `whsec_${exampleBytes('callback secret', 32, 'base64')}`;
/** A share token as minted: `shr_` + base64url of 32 bytes. */
const SHARE_TOKEN = `shr_${exampleBytes('share token', 32, 'base64url')}`;
/** The session url's token (base64url of 32 bytes). */
const SESSION_URL_TOKEN = exampleBytes('session url token', 32, 'base64url');

const json64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** user-42's session was decided, and its service token issued, 95 s after it was created. */
const DECIDED_AT = T + 95;
const ISSUED_AT = DECIDED_AT;

/**
 * A service token as the service signs it: the real header and claims of an EdDSA JWT; the
 * signature part has the real length but is not a signature (real tokens verify with
 * /.well-known/jwks.json).
 */
function serviceToken(claims: {
  tenant: string;
  session: string;
  workflow: string;
  level: string;
  vendorData: string;
  jti: string;
  issuedAt: number;
}): string {
  return [
    json64({ alg: 'EdDSA', kid: ID.signingKey, typ: 'JWT' }),
    json64({
      session_id: claims.session,
      tenant_id: claims.tenant,
      workflow_id: claims.workflow,
      compliance_level: claims.level,
      vendor_data: claims.vendorData,
      env: 'live',
      iss: 'openkyc',
      aud: `openkyc:service-token:${claims.tenant}`,
      sub: claims.session,
      jti: claims.jti,
      iat: claims.issuedAt,
      exp: claims.issuedAt + SERVICE_TOKEN_LIFETIME_SECONDS,
    }),
    exampleBytes(`signature ${claims.jti}`, 64, 'base64url'),
  ].join('.');
}
/** user-42's service token, from the approval of their session. */
const SERVICE_TOKEN = serviceToken({
  tenant: ID.application,
  session: ID.session,
  workflow: 'standard_kyc',
  level: 'standard',
  vendorData: 'user-42',
  jti: ID.serviceToken,
  issuedAt: ISSUED_AT,
});

const ALL_AML_LISTS = ['OFAC_SDN', 'EU_CONSOLIDATED', 'UN_SC', 'PEP', 'ADVERSE_MEDIA'];
const DOCUMENT_DESCRIPTION = 'ID document: image quality, MRZ reading and check digits, expiry, optional NFC.';
const DOCUMENT_RESULT = {
  status: 'passed',
  required: true,
  provider: 'openkyc:mrz_ocr',
  warnings: [],
  details: {
    result_code: 'clear',
    document_type: 'PASSPORT',
    issuing_country: 'GB',
    checks: { document_authentic: 'passed', mrz_match: 'passed', expiry_check: 'passed', nfc_signature: 'skipped' },
    extracted: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      date_of_birth: '1990-12-10',
      document_number: '533401372',
      expiry_date: '2031-11-23',
      nationality: 'GB',
      nationality_code: 'GBR',
      issuing_state: 'GBR',
      sex: 'F',
      document_code: 'P',
      mrz_format: 'TD3',
    },
  },
};
const NODE_RESULTS = {
  document_verification: DOCUMENT_RESULT,
  biometric_kyc: {
    status: 'passed',
    required: true,
    provider: 'openkyc:face_match',
    warnings: [],
    details: { result_code: 'clear', similarity: 0.94, checks: { liveness: 'passed', face_match: 'passed' } },
  },
  aml_screening: {
    status: 'passed',
    required: true,
    provider: 'openkyc:aml_screen',
    warnings: [],
    details: {
      result_code: 'clear',
      score: 0,
      risk_band: 1,
      hits: [],
      checked_lists: ALL_AML_LISTS,
      screened_source: 'document',
      subject: { full_name: 'Ada Lovelace', date_of_birth: '1990-12-10', country: 'GB' },
      submitted_data: { full_name: 'Ada Lovelace' },
    },
  },
  phone_verification: { status: 'pending', required: false, provider: 'openkyc:sms_otp', warnings: [], details: {} },
};

const SESSION = {
  session_id: ID.session,
  url: `${PUBLIC_URL}/verify/${ID.session}?token=${SESSION_URL_TOKEN}`,
  status: 'pending',
  workflow_id: 'standard_kyc',
  vendor_data: 'user-42',
  redirect_url: 'https://app.acme.example/kyc/done',
  language: 'en',
  created_at: T,
  expires_at: T + SESSION_LIFETIME_SECONDS,
};
const APPROVED_SESSION = { ...SESSION, status: 'approved', decided_at: DECIDED_AT, updated_at: DECIDED_AT };

const DECISION = {
  session_id: ID.session,
  status: 'approved',
  workflow_id: 'standard_kyc',
  workflow_revision: 1,
  vendor_data: 'user-42',
  compliance_level: 'standard',
  service_token: SERVICE_TOKEN,
  node_results: NODE_RESULTS,
  reasons: [],
};

/** One step of the end user's progress. */
function step(node_type: string, description: string, required: boolean, status: string, attempts: number, extra: object = {}) {
  return { node_type, description, required, status, ...extra, attempts, attempts_remaining: 3 - attempts };
}
const SELFIE_DESCRIPTION = 'Selfie to document portrait match, with liveness where the model gives a signal.';
const AML_DESCRIPTION = 'Sanctions, PEP and adverse-media screening.';
const PHONE_DESCRIPTION = 'Phone ownership through a one-time code.';
/** Progress of user-42's session: the first passport photo was blurred and retaken, then selfie, AML and phone. */
function progress(status: string, steps: [document: object, selfie: object, aml: object, phone: object]) {
  return { session_id: ID.session, status, expires_at: SESSION.expires_at, steps };
}
const PENDING = {
  document: step('document_verification', DOCUMENT_DESCRIPTION, true, 'pending', 0),
  selfie: step('biometric_kyc', SELFIE_DESCRIPTION, true, 'pending', 0),
  aml: step('aml_screening', AML_DESCRIPTION, true, 'pending', 0),
  phone: step('phone_verification', PHONE_DESCRIPTION, false, 'pending', 0),
};
const DONE = {
  document: step('document_verification', DOCUMENT_DESCRIPTION, true, 'passed', 2),
  selfie: step('biometric_kyc', SELFIE_DESCRIPTION, true, 'passed', 1),
  aml: step('aml_screening', AML_DESCRIPTION, true, 'passed', 1),
  phone: step('phone_verification', PHONE_DESCRIPTION, false, 'passed', 1),
};

/** The KYB session's progress: registry, AML of the company, proof of address. */
function kybProgress(registry: string, poa: string) {
  return {
    session_id: ID.kybSession,
    status: 'in_progress',
    expires_at: T + 600 + SESSION_LIFETIME_SECONDS,
    steps: [
      step('business_registry', 'Company registration lookup.', true, registry, registry === 'pending' ? 0 : 1),
      step('aml_screening', AML_DESCRIPTION, true, 'pending', 0),
      step(
        'proof_of_address',
        'Proof-of-address document: extraction, name match, freshness, address check, tamper score.',
        true,
        poa,
        poa === 'pending' ? 0 : 1,
      ),
    ],
  };
}

const CUSTOM_WORKFLOW = {
  workflow_id: ID.workflow,
  name: 'Document and AML',
  type: 'user',
  built_in: false,
  nodes: [
    { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
    { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' },
  ],
  rules: [] as Record<string, unknown>[],
  published_revision: 1,
  draft_revision: null as number | null,
  compliance_level: 'standard',
  aml_score_threshold: 80,
  max_attempts: 3,
  duplicates: 'review',
  capture: 'any',
  liveness: 'passive',
  created_at: T - 86_400,
  updated_at: T - 86_400,
};
/** A rule of the examples: a high-risk AML band goes to review. */
const POA_RULE = { id: 'high_risk_review', when: { '==': [{ var: 'aml.risk_band' }, 'high'] }, then: 'review' };
const DEFINITION = {
  name: CUSTOM_WORKFLOW.name,
  type: 'user',
  nodes: CUSTOM_WORKFLOW.nodes,
  rules: [],
  complianceLevel: 'standard',
  amlScoreThreshold: 80,
  maxAttempts: 3,
  duplicates: 'review',
  capture: 'any',
  liveness: 'passive',
};
const REPLAY = {
  replay_id: '5d0c7a8e-8a51-4c38-9a57-0f3c1c3b9d11',
  workflow_id: ID.workflow,
  revision: 2,
  status: 'done',
  total: 200,
  done: 200,
  changed: 1,
  by_reason: [{ reason: 'rule_review', count: 1 }],
  changes: [
    {
      session_id: '0b7e4c5e-2f5d-4d8e-9b0a-6c1f2e3d4a5b',
      before: 'approved',
      after: 'in_review',
      reason: 'rule_review',
      matched_rules: ['high_risk_review'],
    },
  ],
  error: null,
  created_at: T - 60,
};
const STANDARD_KYC = {
  workflow_id: 'standard_kyc',
  name: 'Standard KYC',
  type: 'user',
  built_in: true,
  nodes: [
    { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' },
    { type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' },
    { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' },
    { type: 'phone_verification', required: false, provider: 'openkyc:sms_otp' },
  ],
  rules: [],
  published_revision: 1,
  draft_revision: null,
  compliance_level: 'standard',
  aml_score_threshold: 80,
  max_attempts: 3,
  duplicates: 'review',
  capture: 'any',
  liveness: 'passive',
  // Built-ins are defined in code, not created: their times are 0.
  created_at: 0,
  updated_at: 0,
};

const INTROSPECTION = {
  active: true,
  status: 'valid',
  jti: ID.serviceToken,
  session_id: ID.session,
  tenant_id: ID.application,
  workflow_id: 'standard_kyc',
  compliance_level: 'standard',
  vendor_data: 'user-42',
  issued_at: ISSUED_AT,
  expires_at: ISSUED_AT + SERVICE_TOKEN_LIFETIME_SECONDS,
};
const REVOKED_AT = T + 86_400;
/** user-43's session went to review at T - 540 and was approved by a reviewer at T + 600. */
const REVIEWED_AT = T + 600;
/** The PEP hit of the reviewed session (aml_only, user-43): what the review and the retake examples show. */
const REVIEWED_AML_RESULT = {
  required: true,
  provider: 'openkyc:aml_screen',
  warnings: [],
  details: {
    result_code: 'pep_match',
    score: 60,
    risk_band: 2,
    hits: [{ list: 'PEP', score: 60, category: 'pep', entry_id: 'Q12345678', matched_name: 'JOHN SMITH' }],
    checked_lists: ALL_AML_LISTS,
    screened_source: 'submitted_data',
    subject: { full_name: 'John Smith' },
  },
};
/** Who the reviewed session is. */
const REVIEWED_SESSION = { session_id: ID.reviewedSession, workflow_id: 'aml_only', vendor_data: 'user-43' };
/** Why the reviewed session went to review. */
const REVIEWED_REASONS = [
  {
    code: 'node_review',
    message: 'Node aml_screening asked for a manual review.',
    node_type: 'aml_screening',
    cause: 'pep_match',
    category: 'screening',
    severity: 'medium',
    retryable: false,
  },
];
/** A built-in reason code and one of Acme's own. */
const EXPIRED_REASON_CODE = {
  code: 'document_expired',
  category: 'document',
  severity: 'high',
  retryable: true,
  reviewer_text: 'The document has expired.',
  end_user_message: 'document_expired',
  built_in: true,
};
const OWN_REASON_CODE = {
  code: 'acme_outside_service_area',
  category: 'data',
  severity: 'medium',
  retryable: false,
  reviewer_text: 'The customer lives outside the countries Acme serves.',
  end_user_message: 'not_verified',
  built_in: false,
};
/** Acme shared user-42's verification an hour after the approval (token valid an hour); the partner imported it 30 min later. */
const SHARED_AT = T + 3_600;
const IMPORTED_AT = SHARED_AT + 1_800;
const REVOCATION_REASON = 'User closed their account.';

const LIST_CREATED_AT = T - 30 * 86_400;
const CUSTOM_LIST = {
  uuid: ID.customList,
  name: 'Chargeback fraud 2026',
  type: 'name',
  policy: 'review',
  entries: 1,
  built_in: false,
  created_at: LIST_CREATED_AT,
  updated_at: LIST_CREATED_AT,
};
const ADDED_BY = `api_key:${ID.apiKey}`;
const NAME_ENTRY = {
  uuid: ID.nameEntry,
  entry_type: 'name',
  fingerprint: 'sha256:f4d042003b08c59262a90bb406915fab9f0292b34c93ab8c2618cc1f02143a70',
  reason: 'Chargeback fraud on order 88412.',
  added_by: ADDED_BY,
  added_at: T + 3_600,
};

const FLOW_SETTINGS = {
  display_name: 'Acme Bank',
  primary_color: '#1d4ed8',
  privacy_url: 'https://acme.example/privacy',
  allowed_redirect_origins: ['https://app.acme.example'],
  allowed_embed_origins: [],
  default_language: 'en',
  updated_at: T - 3_600,
};

const DESTINATION = {
  uuid: ID.destination,
  url: 'https://hooks.acme.example/kyc',
  version: 'v3',
  events: ['session.status_changed', 'agent.revoked'],
  active: true,
  created_at: T - 7 * 86_400,
  updated_at: T - 7 * 86_400,
};
/** The delivery of user-42's approval to Acme's destination: the first try timed out, the retry 5 s later succeeded. */
const DELIVERY = {
  id: ID.delivery,
  event_id: ID.statusEvent,
  event_type: 'session.status_changed',
  session_id: ID.session,
  destination_uuid: ID.destination,
  status: 'succeeded',
  attempt_count: 2,
  last_status_code: 200,
  created_at: DECIDED_AT,
  updated_at: DECIDED_AT + 21,
};
const QUEUED_DELIVERY = { ...DELIVERY, status: 'pending', next_attempt_at: T + 200, updated_at: T + 200 };

const FEE = {
  environment: 'live',
  share_token_id: ID.shareToken,
  original_session_id: ID.session,
  imported_session_id: ID.importedSession,
  payer_application_id: ID.partnerApplication,
  originating_application_id: ID.application,
  amount: '0.15',
  amount_micros: 150_000,
  currency: 'USD',
  created_at: IMPORTED_AT,
};

/** Example bodies of one operation. */
export interface OperationExamples {
  /** Path parameters, by name (the id of the resource the example reads or changes). */
  params?: Record<string, string>;
  /** Request body. */
  request?: unknown;
  /** Body of the success answer. */
  response?: unknown;
  /** Body of the other success answer of a create that can return an existing resource (200 instead of 201). */
  existing?: unknown;
}

/** Examples of every `/v1` operation, by operationId. */
export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  listWorkflows: { response: { workflows: [STANDARD_KYC, CUSTOM_WORKFLOW] } },
  getWorkflow: { params: { workflow_id: ID.workflow }, response: CUSTOM_WORKFLOW },
  createWorkflow: {
    request: { name: CUSTOM_WORKFLOW.name, nodes: CUSTOM_WORKFLOW.nodes },
    response: CUSTOM_WORKFLOW,
  },
  updateWorkflow: {
    params: { workflow_id: ID.workflow },
    request: { name: 'Document and AML (EU)', aml_score_threshold: 70 },
    response: { ...CUSTOM_WORKFLOW, name: 'Document and AML (EU)', aml_score_threshold: 70, published_revision: 2, updated_at: T - 3_600 },
  },
  deleteWorkflow: { params: { workflow_id: ID.workflow } },
  listWorkflowRevisions: {
    params: { workflow_id: ID.workflow },
    response: {
      revisions: [
        {
          revision: 2,
          created_at: T - 3_600,
          created_by: 'Grace Hopper',
          published: false,
          draft: true,
          definition: { ...DEFINITION, rules: [POA_RULE] },
        },
        { revision: 1, created_at: T - 86_400, created_by: 'Grace Hopper', published: true, draft: false, definition: DEFINITION },
      ],
      publications: [{ revision: 1, previous_revision: null, actor_name: 'Grace Hopper', actor_key_id: null, published_at: T - 86_400 }],
    },
  },
  saveWorkflowDraft: {
    params: { workflow_id: ID.workflow },
    request: { rules: [POA_RULE] },
    response: { ...CUSTOM_WORKFLOW, draft_revision: 2, updated_at: T - 3_600 },
  },
  publishWorkflowRevision: {
    params: { workflow_id: ID.workflow, revision: '2' },
    response: { ...CUSTOM_WORKFLOW, rules: [POA_RULE], published_revision: 2, updated_at: T - 3_600 },
  },
  startWorkflowReplay: {
    params: { workflow_id: ID.workflow },
    request: { revision: 2, last: 200 },
    response: REPLAY,
  },
  getWorkflowReplay: { params: { replay_id: REPLAY.replay_id }, response: REPLAY },

  createSession: {
    request: {
      workflow_id: 'standard_kyc',
      vendor_data: 'user-42',
      callback: 'https://api.acme.example/kyc/callback',
      redirect_url: SESSION.redirect_url,
      language: 'en',
      expected_details: { first_name: 'Ada', last_name: 'Lovelace' },
      contact_details: { email: 'ada@example.com', phone: '+447700900123' },
    },
    response: { ...SESSION, idempotent_reuse: false },
    existing: { ...SESSION, status: 'in_progress', idempotent_reuse: true },
  },
  listSessions: {
    response: {
      sessions: [
        APPROVED_SESSION,
        {
          ...SESSION,
          session_id: ID.reviewedSession,
          url: `${PUBLIC_URL}/verify/${ID.reviewedSession}?token=${exampleBytes('second session url token', 32, 'base64url')}`,
          status: 'in_review',
          workflow_id: 'aml_only',
          vendor_data: 'user-43',
          created_at: T - 600,
          expires_at: T - 600 + SESSION_LIFETIME_SECONDS,
          updated_at: T - 540,
        },
      ],
      has_more: true,
      next_cursor: 'eyJjIjoxNzk1NTU0MTU1LCJpZCI6IjhhOWUyYTViIn0',
    },
  },
  searchSessions: {
    response: { sessions: [{ ...APPROVED_SESSION, matched_on: ['email'] }] },
  },
  getSession: {
    params: { session_id: ID.session },
    response: {
      ...APPROVED_SESSION,
      environment: 'live',
      callback: 'https://api.acme.example/kyc/callback',
      contact_details: { email: 'ada@example.com', phone: '+447700900123' },
      expected_details: { first_name: 'Ada', last_name: 'Lovelace' },
      warnings: [],
      node_results: NODE_RESULTS,
    },
  },
  getDecision: { params: { session_id: ID.session }, response: DECISION },
  addSessionNote: {
    params: { session_id: ID.reviewedSession },
    request: { body: 'Called the customer: the employer named in the AML hit is a namesake.' },
    response: {
      note_id: ID.note,
      session_id: ID.reviewedSession,
      author_name: `api_key:${ID.apiKey}`,
      body: 'Called the customer: the employer named in the AML hit is a namesake.',
      created_at: REVIEWED_AT - 60,
    },
  },
  eraseSession: {
    params: { session_id: ID.reviewedSession },
    response: { session_id: ID.reviewedSession, erased_at: REVIEWED_AT + 86_400, evidence_deleted: 2 },
  },
  reviewSession: {
    params: { session_id: ID.reviewedSession },
    request: { decision: 'approved', reason: 'PEP status checked by compliance: former local councillor, low risk.' },
    response: {
      session_id: ID.reviewedSession,
      status: 'approved',
      workflow_id: 'aml_only',
      vendor_data: 'user-43',
      compliance_level: 'basic',
      service_token: serviceToken({
        tenant: ID.application,
        session: ID.reviewedSession,
        workflow: 'aml_only',
        level: 'basic',
        vendorData: 'user-43',
        jti: ID.reviewedServiceToken,
        issuedAt: REVIEWED_AT,
      }),
      node_results: {
        aml_screening: { ...REVIEWED_AML_RESULT, status: 'review' },
      },
      reasons: REVIEWED_REASONS,
    },
  },
  listSessionAmlHits: {
    params: { session_id: ID.reviewedSession },
    response: {
      data: [
        {
          entity_id: 'PEP:Q12345678',
          list: 'PEP',
          category: 'pep',
          matched_name: 'JOHN SMITH',
          score: 60,
          found_by: 'screening',
          suppressed: false,
          entity: {
            kind: 'person',
            primary_name: 'John Smith',
            aliases: ['Johnny Smith'],
            dates_of_birth: ['1961'],
            countries: ['GB'],
            programs: [],
            topics: ['role.pep'],
            source_id: 'Q12345678',
            imported_at: REVIEWED_AT - 86_400,
            version: '9f2c1e0a5b7d4c3e8a6f1b2d0c9e7a5f3b1d8c6e4a2f0b9d7c5e3a1f8b6d4c2e',
          },
          disposition: {
            id: '6d0f4c1e-8a2b-4f3c-9d7e-1a5b3c8e2f40',
            session_id: ID.reviewedSession,
            entity_id: 'PEP:Q12345678',
            disposition: 'false_positive',
            reason: 'Listed person born 1961 in Leeds; the applicant was born 1990 in Cardiff.',
            actor: 'operator:Rosalind Franklin',
            actor_name: 'Rosalind Franklin',
            created_at: REVIEWED_AT - 60,
            entity_changed: false,
          },
        },
      ],
    },
  },
  disposeAmlHit: {
    params: { session_id: ID.reviewedSession, entity_id: 'PEP:Q12345678' },
    request: { disposition: 'false_positive', reason: 'Listed person born 1961 in Leeds; the applicant was born 1990 in Cardiff.' },
    response: {
      id: '6d0f4c1e-8a2b-4f3c-9d7e-1a5b3c8e2f40',
      session_id: ID.reviewedSession,
      entity_id: 'PEP:Q12345678',
      disposition: 'false_positive',
      reason: 'Listed person born 1961 in Leeds; the applicant was born 1990 in Cardiff.',
      actor: 'api_key:3b9d2f1a-6c4e-4a8b-9f0d-2e7c5a1b8d63',
      actor_name: null,
      created_at: REVIEWED_AT - 60,
      entity_changed: false,
    },
  },
  requestRetake: {
    params: { session_id: ID.reviewedSession },
    request: {
      node_type: 'aml_screening',
      reason_code: 'date_of_birth_mismatch',
      note: 'Please enter your date of birth as it is printed on your passport.',
    },
    // The reasons of the verdict before are recomputed at the next decision.
    response: {
      ...REVIEWED_SESSION,
      status: 'in_progress',
      node_results: { aml_screening: { ...REVIEWED_AML_RESULT, status: 'resubmission_requested' } },
      reasons: REVIEWED_REASONS,
    },
  },
  introspectServiceToken: { request: { token: SERVICE_TOKEN }, response: INTROSPECTION },
  revokeServiceToken: {
    request: { token: SERVICE_TOKEN, reason: REVOCATION_REASON },
    response: { ...INTROSPECTION, active: false, status: 'revoked', revoked_at: REVOKED_AT },
  },

  getVerificationSteps: {
    params: { session_id: ID.session },
    response: progress('pending', [PENDING.document, PENDING.selfie, PENDING.aml, PENDING.phone]),
  },
  submitDocumentStep: {
    params: { session_id: ID.session },
    request: { country: 'GB', id_type: 'PASSPORT', image_front: IMAGE, first_name: 'Ada', last_name: 'Lovelace' },
    // The first photo was blurred: the step asks for a retake instead of failing.
    response: progress('in_progress', [
      step('document_verification', DOCUMENT_DESCRIPTION, true, 'resubmission_requested', 1, { resubmission_reason: 'image_blurry' }),
      PENDING.selfie,
      PENDING.aml,
      PENDING.phone,
    ]),
  },
  submitSelfieStep: {
    params: { session_id: ID.session },
    request: { selfie: IMAGE },
    response: progress('in_progress', [DONE.document, DONE.selfie, PENDING.aml, PENDING.phone]),
  },
  submitAmlStep: {
    params: { session_id: ID.session },
    request: { full_name: 'Ada Lovelace', date_of_birth: '1990-12-10', country: 'GB' },
    // The optional phone step is still open, but every required step passed: the session is approved.
    response: progress('approved', [DONE.document, DONE.selfie, DONE.aml, PENDING.phone]),
  },
  requestPhoneCodeStep: {
    params: { session_id: ID.session },
    request: { phone: '+447700900123' },
    response: { sent_to: '+44••••••••123', expires_at: T + 400 },
  },
  confirmPhoneCodeStep: {
    params: { session_id: ID.session },
    request: { code: '482913' },
    response: progress('approved', [DONE.document, DONE.selfie, DONE.aml, DONE.phone]),
  },
  submitProofOfAddressStep: {
    params: { session_id: ID.kybSession },
    request: { document_image: IMAGE, expected_name: 'Acme Trading Ltd', country: 'GB', max_age_days: 90 },
    response: kybProgress('passed', 'passed'),
  },
  submitBusinessRegistryStep: {
    params: { session_id: ID.kybSession },
    request: { company_name: 'Acme Trading Ltd', registration_number: '09876543', country: 'GB' },
    response: kybProgress('passed', 'pending'),
  },

  shareSession: {
    params: { session_id: ID.session },
    request: { partner_application_id: ID.partnerApplication, expires_in: 3600 },
    response: { share_token: SHARE_TOKEN, expires_at: SHARED_AT + 3_600 },
  },
  importSharedSession: {
    request: { share_token: SHARE_TOKEN, trust_review: true, workflow_id: 'standard_kyc', vendor_data: 'partner-user-9001' },
    response: {
      session_id: ID.importedSession,
      imported_from: SHARE_TOKEN,
      status: 'approved',
      compliance_level: 'standard',
      // The partner's own token: its application, its copy of the session.
      service_token: serviceToken({
        tenant: ID.partnerApplication,
        session: ID.importedSession,
        workflow: 'standard_kyc',
        level: 'standard',
        vendorData: 'partner-user-9001',
        jti: ID.importedServiceToken,
        issuedAt: IMPORTED_AT,
      }),
    },
  },
  listLedgerEntries: {
    response: {
      entries: [
        { entry_id: ID.serviceFee, ...FEE, beneficiary: 'service' },
        { entry_id: ID.originatorFee, ...FEE, beneficiary: 'originating_tenant', beneficiary_application_id: ID.application },
      ],
      has_more: false,
    },
  },

  listLists: {
    response: {
      lists: [
        { ...CUSTOM_LIST, uuid: ID.faceList, name: 'Blocked faces', type: 'face', policy: 'auto_decline', entries: 3, built_in: true },
        {
          ...CUSTOM_LIST,
          uuid: ID.documentList,
          name: 'Blocked documents',
          type: 'document',
          policy: 'auto_decline',
          entries: 12,
          built_in: true,
        },
        { ...CUSTOM_LIST, uuid: ID.nameList, name: 'Watched names', type: 'name', policy: 'review', entries: 0, built_in: true },
        CUSTOM_LIST,
      ],
    },
  },
  createList: {
    request: { name: CUSTOM_LIST.name, type: 'name', policy: 'review' },
    response: { ...CUSTOM_LIST, entries: 0 },
  },
  getList: { params: { uuid: ID.customList }, response: CUSTOM_LIST },
  updateList: {
    params: { uuid: ID.customList },
    request: { policy: 'auto_decline' },
    response: { ...CUSTOM_LIST, policy: 'auto_decline', updated_at: T + 7_200 },
  },
  deleteList: { params: { uuid: ID.customList } },
  listListEntries: { params: { uuid: ID.customList }, response: { count: 1, results: [NAME_ENTRY] } },
  addFaceListEntry: {
    params: { uuid: ID.faceList },
    request: { session_id: ID.session, reason: 'Synthetic identity: same face as three other accounts.' },
    response: {
      uuid: ID.faceEntry,
      fingerprint: 'sha256:9b1f0e4c7a2d5b8e3f6a9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f',
      raw_image_stored: false,
      added_at: T + 3_600,
    },
  },
  addNameListEntry: { params: { uuid: ID.customList }, request: { name: 'John Doe', reason: NAME_ENTRY.reason }, response: NAME_ENTRY },
  addDocumentListEntry: {
    params: { uuid: ID.documentList },
    request: { country: 'GB', id_type: 'PASSPORT', document_number: '123456789', reason: 'Reported stolen.' },
    response: {
      uuid: ID.documentEntry,
      entry_type: 'document',
      fingerprint: 'sha256:26f8020b888c31ff25b3ae65b2b5f6960095ad670f438de5dab40c1cf9f2dd55',
      reason: 'Reported stolen.',
      added_by: ADDED_BY,
      added_at: T + 3_600,
    },
  },
  deleteListEntry: { params: { uuid: ID.customList, entry_uuid: ID.nameEntry } },

  screenAml: {
    request: { full_name: 'John Smith', date_of_birth: '1961-08-04', country: 'GB' },
    response: {
      aml_id: ID.aml,
      risk_band: 2,
      hits: [
        {
          entity_id: 'PEP:Q12345678',
          list: 'PEP',
          matched_name: 'John Arthur Smith',
          name: 'John Arthur Smith',
          score: 55,
          matched_fields: ['name', 'country'],
          programs: [],
          topics: ['role.pep'],
          explanation: {
            matched_name_kind: 'primary_name',
            query_form: 'john smith',
            listed_form: 'john arthur smith',
            method: 'tokens',
            token_matches: [
              { query_token: 'john', listed_token: 'john', credit: 1, weight: 1, kind: 'exact' },
              { query_token: 'smith', listed_token: 'smith', credit: 1, weight: 1, kind: 'exact' },
            ],
            unmatched_query_tokens: [],
            unmatched_listed_tokens: ['arthur'],
            name_factors: [],
            name_similarity: 0.8,
            name_points: 80,
            date_of_birth: { outcome: 'conflict', points: -30, listed: ['1958-02-11'] },
            country: { outcome: 'match', points: 5, listed: ['GB'] },
            summary:
              'primary name "John Arthur Smith": matched john, smith; listed arthur not in the query → name 80; date of birth conflict −30; country match +5 = 55',
          },
        },
      ],
      score: 55,
      checked_lists: ALL_AML_LISTS,
    },
  },
  checkProofOfAddress: {
    request: { document_image: IMAGE, expected_name: 'Ada Lovelace', country: 'GB', max_age_days: 90 },
    response: {
      poa_id: ID.poa,
      status: 'passed',
      result_code: 'clear',
      extracted: { name: 'Ada Lovelace', address: '12 St James Square, London SW1Y 4JH', issuer: 'Thames Water', issued_at: '2026-11-02' },
      checks: { name_match: 'passed', geocode: 'passed', freshness: 'passed', tamper_score: 0.04 },
      tamper_method: 'ela',
      warnings: [],
    },
  },
  verifyIdDocument: {
    request: { country: 'GB', id_type: 'PASSPORT', image_front: IMAGE, metadata: { order_id: '88412' } },
    response: {
      verification_id: ID.idVerification,
      status: 'passed',
      result_code: 'clear',
      checks: DOCUMENT_RESULT.details.checks,
      issuing_country: 'GB',
      document_type: 'PASSPORT',
      extracted: DOCUMENT_RESULT.details.extracted,
      warnings: [],
      metadata: { order_id: '88412' },
    },
  },

  createWebhookDestination: {
    request: { url: DESTINATION.url, version: 'v3', events: DESTINATION.events },
    response: { ...DESTINATION, secret: DESTINATION_SECRET },
  },
  listWebhookDestinations: { response: { webhook_destinations: [DESTINATION] } },
  getWebhookDestination: { params: { uuid: ID.destination }, response: DESTINATION },
  updateWebhookDestination: {
    params: { uuid: ID.destination },
    request: { rotate_secret: true },
    response: { ...DESTINATION, secret: ROTATED_DESTINATION_SECRET, updated_at: T + 86_400 },
  },
  deleteWebhookDestination: { params: { uuid: ID.destination } },
  sendTestWebhook: {
    params: { uuid: ID.destination },
    response: {
      id: ID.testDelivery,
      event_type: 'webhook.test',
      destination_uuid: ID.destination,
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: T + 200,
      created_at: T + 200,
      updated_at: T + 200,
    },
  },
  listWebhookDeliveries: { params: { uuid: ID.destination }, response: { deliveries: [DELIVERY] } },
  getWebhookDelivery: { params: { delivery_id: ID.delivery }, response: DELIVERY },
  listWebhookAttempts: {
    params: { delivery_id: ID.delivery },
    response: {
      attempts: [
        {
          id: ID.firstAttempt,
          delivery_id: ID.delivery,
          attempted_at: DECIDED_AT,
          status: 'failed',
          duration_ms: 15_000,
          error: 'timeout after 15000 ms',
          next_attempt_at: DECIDED_AT + 5,
        },
        {
          id: ID.secondAttempt,
          delivery_id: ID.delivery,
          attempted_at: DECIDED_AT + 21,
          status: 'succeeded',
          response_status_code: 200,
          duration_ms: 87,
          response_body: '{"received":true}',
        },
      ],
    },
  },
  replayWebhookDelivery: { params: { delivery_id: ID.delivery }, response: QUEUED_DELIVERY },
  rotateCallbackSecret: { response: { secret: CALLBACK_SECRET } },

  listReasonCodes: { response: { reason_codes: [EXPIRED_REASON_CODE, OWN_REASON_CODE] } },
  createReasonCode: {
    request: {
      code: OWN_REASON_CODE.code,
      category: OWN_REASON_CODE.category,
      severity: OWN_REASON_CODE.severity,
      retryable: OWN_REASON_CODE.retryable,
      reviewer_text: OWN_REASON_CODE.reviewer_text,
      end_user_message: OWN_REASON_CODE.end_user_message,
    },
    response: OWN_REASON_CODE,
  },
  deleteReasonCode: { params: { code: OWN_REASON_CODE.code } },

  getFlowSettings: { response: FLOW_SETTINGS },
  updateFlowSettings: {
    request: { allowed_redirect_origins: ['https://app.acme.example'], default_language: 'fr' },
    response: { ...FLOW_SETTINGS, default_language: 'fr', updated_at: T - 60 },
  },
};

const STATUS_CHANGED = {
  session_id: ID.session,
  status: 'approved',
  previous_status: 'in_progress',
  workflow_id: 'standard_kyc',
  vendor_data: 'user-42',
};
const REVOKED = { jti: ID.serviceToken, session_id: ID.session, vendor_data: 'user-42', revoked_at: REVOKED_AT, reason: REVOCATION_REASON };
const RESUBMISSION = {
  session_id: ID.session,
  workflow_id: 'standard_kyc',
  vendor_data: 'user-42',
  node_type: 'document_verification',
  resubmission_reason: 'image_blurry',
  attempts: 1,
  attempts_remaining: 2,
};
const RESUBMITTED_AT = T + 40;
const TESTED_AT = T + 201;

/** One payload per webhook event and version, keyed like the OpenAPI `webhooks` entries. */
export const WEBHOOK_EXAMPLES: Record<string, unknown> = {
  'session.status_changed.v3': {
    id: ID.statusEvent,
    type: 'session.status_changed',
    timestamp: DECIDED_AT,
    data: {
      ...STATUS_CHANGED,
      environment: 'live',
      actor: 'decision_engine',
      changed_at: DECIDED_AT,
      ...DECISION,
    },
  },
  'session.status_changed.v2': { event: 'session.status_changed', created_at: DECIDED_AT, ...STATUS_CHANGED, reasons: [] },
  'session.status_changed.v1': { event: 'session.status_changed', session_id: ID.session, status: 'approved', reasons: [] },
  'agent.revoked.v3': { id: ID.revokedEvent, type: 'agent.revoked', timestamp: REVOKED_AT, data: REVOKED },
  'agent.revoked.v2': { event: 'agent.revoked', created_at: REVOKED_AT, ...REVOKED },
  'agent.revoked.v1': { event: 'agent.revoked', session_id: ID.session },
  'session.resubmission_requested.v3': {
    id: ID.resubmissionEvent,
    type: 'session.resubmission_requested',
    timestamp: RESUBMITTED_AT,
    data: RESUBMISSION,
  },
  'session.resubmission_requested.v2': { event: 'session.resubmission_requested', created_at: RESUBMITTED_AT, ...RESUBMISSION },
  'session.resubmission_requested.v1': { event: 'session.resubmission_requested', session_id: ID.session },
  // A test message is no stored event: its id is the destination's.
  'webhook.test.v3': {
    id: ID.destination,
    type: 'webhook.test',
    timestamp: TESTED_AT,
    data: { destination_id: ID.destination, test: true },
  },
  'webhook.test.v2': { event: 'webhook.test', created_at: TESTED_AT, destination_id: ID.destination, test: true },
  'webhook.test.v1': { event: 'webhook.test', session_id: null },
};

/** What the service says for each code, as a client sees it (the messages the services throw). */
const PROBLEM_DETAILS: Record<ErrorCode, string> = {
  validation_failed: 'The request has invalid fields.',
  malformed_json: 'The body is not valid JSON.',
  headers_too_large: 'The request headers are larger than the limit of 16 KB.',
  link_expired: 'This evidence link has expired: open the case again for a new one.',
  account_locked: 'Too many wrong passwords: this account is locked for 900 s.',
  share_to_self: 'A session cannot be shared with the application that owns it.',
  redirect_not_allowed: 'redirect_url https://evil.example/done is not in the allowed redirect origins of the flow settings.',
  second_factor_required: 'This account has a second factor: enter the 6-digit code from your authenticator app.',
  unauthenticated: 'A valid x-api-key header (or, for end-user steps, x-session-token) is required.',
  forbidden: 'This operation needs an API key; a session token only reaches its own verification steps.',
  introspection_not_allowed:
    'Introspection (__schema, __type) is answered for API keys only: send x-api-key, as GraphiQL and code generators do.',
  workflow_read_only: 'Workflow standard_kyc is built in and cannot be changed.',
  not_found: 'Not found for this API key (tenant and environment).',
  method_not_allowed: 'Method not allowed on this path.',
  conflict: 'A concurrent change to the same data won; read it again and retry.',
  invalid_transition: 'The session is approved and accepts no more input.',
  session_claimed: 'Grace Hopper is working on this case; ask them to release it, or an admin to reassign it.',
  last_admin: 'Ada Lovelace is the last admin of the organisation: make someone else admin first.',
  session_not_shareable: 'The session is pending; only approved, declined or in_review sessions can be shared.',
  share_token_redeemed: 'This share token was already imported by your application.',
  workflow_in_use: `Workflow ${ID.workflow} is used by 2 active session(s); delete it once they are decided.`,
  share_token_expired: 'This share token has expired; ask the originating application for a new one.',
  payload_too_large: 'The body is larger than the limit of 15728640 bytes.',
  unsupported_media_type: 'The body must be JSON: send it with Content-Type: application/json.',
  document_too_old: 'The document was issued more than 90 days ago.',
  otp_invalid: 'Wrong code; 4 attempt(s) left.',
  otp_expired: 'The code has expired; request a new one.',
  provider_unavailable: 'This server has no live engine for openkyc:registry_lookup; use a sandbox key or a workflow without these nodes.',
  rate_limited: 'Too many requests; retry after 2 s.',
  too_many_subscriptions: 'Too many operations on one connection.',
  query_too_complex: 'The query is too complex.',
  internal_error: 'The server failed to handle the request.',
  service_unavailable: 'The database did not answer in time; retry shortly.',
  engines_busy: 'Every verification engine is busy; retry in 3 s.',
  engine_timeout: 'The verification did not finish within its time budget of 60000 ms; it was aborted.',
};

/**
 * An RFC 9457 problem as the service sends it for `code` at `instance` (the request path);
 * `field` names the field of a validation_failed example.
 */
export function exampleProblem(code: ErrorCode, instance: string, field?: string): Record<string, unknown> {
  const { status, title } = ERROR_CATALOGUE[code];
  return {
    type: `https://errors.openkyc.dev/${code}`,
    title,
    status,
    detail: PROBLEM_DETAILS[code],
    code,
    ...(code === 'validation_failed' && field ? { errors: [{ field, code: 'required', message: `${field} is required` }] } : {}),
    instance,
  };
}
