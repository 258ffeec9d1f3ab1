/**
 * Who may call what: every role and principal decision of the service, in one place.
 *
 * A request acts for one caller kind (nobody, an end user with a session token, an API key, or an
 * operator signed in to the console as viewer, reviewer or admin). Every root field of the GraphQL
 * schema is listed in {@link ROOT_FIELD_RULES} with the audience it is for and the least operator
 * role that may run it; the GraphQL guard (src/graphql/authorization-guard.ts) applies that table
 * to every root field, whichever transport carries it (HTTP, graphql-ws, the REST facade). The
 * services and HTTP routes call the narrowing functions below, which refuse in the same words,
 * so a service reached another way (the console's CSV export) refuses alike.
 *
 * test/foundation/authorization.test.ts holds the table of who may call what, field by field.
 */
import type { OperatorRole } from '../../entities/operator.entity.js';
import { ApiError } from '../shared/errors.js';
import type { OperatorPrincipal, Principal, TenantPrincipal } from './context.js';

/** The kinds of caller a decision distinguishes: an operator's role counts as its own kind. */
export type CallerKind = 'none' | 'end_user' | 'api_key' | OperatorRole;

/** Every caller kind, least trusted first (the table test walks them all). */
export const CALLER_KINDS: readonly CallerKind[] = ['none', 'end_user', 'api_key', 'viewer', 'reviewer', 'admin'];

/** The caller kind of a request's principal. */
export function callerKindOf(principal: Principal | null | undefined): CallerKind {
  if (!principal) return 'none';
  if (principal.kind === 'operator') return principal.role;
  return principal.kind;
}

/**
 * Who an operation is for:
 * - `session`: one session's end user (session token) or the tenant (API key, operator);
 * - `tenant`: the tenant's API key or an operator, never an end-user token;
 * - `operators`: operators signed in to the console only (people's work: claims, the workload);
 * - `admins`: admins signed in to the console only (people, keys, the audit log);
 * - `self`: an operator's own account (password, second factor), whatever the role.
 */
export type Audience = 'session' | 'tenant' | 'operators' | 'admins' | 'self';

/** How an operation refuses a caller it is not for, in the words clients and tests know. */
export interface Refusal {
  /** The refusal of an API key by an operation for people in the console. */
  apiKey: string;
  /** The refusal of an operator whose role is short, on a read (mutations use the guard's sentence). */
  role?: (role: OperatorRole) => string;
}

/** The refusals of the operations for people, by subject. */
export const REFUSALS = {
  operatorAdmin: {
    apiKey: 'Operators are managed by an admin in the console or with the CLI (operator:create), not with an API key.',
    role: (role) => `A ${role} cannot manage operators; ask an admin of your organisation.`,
  },
  auditLog: {
    apiKey: 'The audit log is shown to admins signed in to the console, not to API keys.',
    role: (role) => `A ${role} cannot read the audit log; ask an admin.`,
  },
  operatorList: consoleListRefusal('Operators'),
  apiKeyList: consoleListRefusal('API keys'),
  workload: { apiKey: 'The workload actions are for operators signed in to the console, not API keys.' },
  claim: caseRefusal('claimed'),
  release: caseRefusal('released'),
  assign: caseRefusal('assigned'),
  secondFactor: { apiKey: 'A second factor belongs to an operator signed in to the console.' },
  password: { apiKey: 'Only an operator signed in to the console has a password.' },
  evidenceRetention: { apiKey: 'The evidence retention is set by an admin in the console.' },
  evidence: { apiKey: 'Evidence is shown to operators signed in to the console, each view audited by name; not to API keys.' },
} satisfies Record<string, Refusal>;

/** The refusal of a console list (people and keys are an admin's to see). */
function consoleListRefusal(what: string): Required<Refusal> {
  return {
    apiKey: `${what} are shown to admins signed in to the console, not to API keys.`,
    role: (role) => `A ${role} cannot list ${what.toLowerCase()}; ask an admin.`,
  };
}

/** The refusal of a claim action: claims are held by people, an API key has none to make. */
function caseRefusal(action: string): Refusal {
  return { apiKey: `Cases are ${action} by operators in the console, not with an API key.` };
}

/** One root field's rule: its audience, the least operator role that may run it, and its refusal of an API key. */
export interface FieldRule {
  audience: Audience;
  /** The least role an operator needs; reads are every role's unless the audience is `admins`. */
  minRole: OperatorRole;
  refusal?: Refusal;
}

/** The kind of root operation a field belongs to. */
export type RootOperation = 'query' | 'mutation' | 'subscription';

const session = (minRole: OperatorRole = 'viewer'): FieldRule => ({ audience: 'session', minRole });
const tenant = (minRole: OperatorRole = 'viewer'): FieldRule => ({ audience: 'tenant', minRole });
const operators = (refusal: Refusal, minRole: OperatorRole = 'viewer'): FieldRule => ({ audience: 'operators', minRole, refusal });
const admins = (refusal: Required<Refusal>): FieldRule => ({ audience: 'admins', minRole: 'admin', refusal });
const self = (refusal: Refusal): FieldRule => ({ audience: 'self', minRole: 'viewer', refusal });

/**
 * Every root field of the schema and who may call it. A reviewer's mutations are deciding cases
 * (or sending a step back) and noting why, adding and removing list entries (blocking a
 * fraudster's face or document found in review), replaying a delivery (sends what was already
 * sent) and the workload; every other mutation (lists themselves, workflows, webhook
 * destinations, keys, operators) is an admin's, and so are an end user's steps when an operator
 * sends them. A field missing here is treated as a tenant
 * field that only admins may mutate, so nothing new opens to viewers by default, and the table
 * test fails until it is classified.
 */
export const ROOT_FIELD_RULES: Readonly<Record<RootOperation, Readonly<Record<string, FieldRule>>>> = {
  query: {
    apiKeys: admins(REFUSALS.apiKeyList),
    assignmentRules: tenant(),
    auditLog: admins(REFUSALS.auditLog),
    currentOperator: tenant(),
    decisionsByReason: tenant(),
    decisionsPerDay: tenant(),
    flowSettings: tenant(),
    hostedFlow: session(),
    introspectServiceToken: tenant(),
    ledgerEntries: tenant(),
    list: tenant(),
    listEntries: tenant(),
    listEntriesConnection: tenant(),
    lists: tenant(),
    operatorInvitations: admins(REFUSALS.operatorAdmin),
    operators: admins(REFUSALS.operatorList),
    reasonCodes: tenant(),
    reviewBacklog: tenant(),
    reviewQueueSessions: tenant(),
    searchSessions: tenant(),
    session: tenant(),
    sessionFunnel: tenant(),
    sessionNotes: tenant(),
    sessionTimeline: tenant(),
    sessions: tenant(),
    timeToDecision: tenant(),
    verificationSteps: session(),
    webhookDeliveries: tenant(),
    webhookDeliveriesConnection: tenant(),
    webhookDelivery: tenant(),
    webhookDestination: tenant(),
    webhookDestinations: tenant(),
    webhookDestinationsConnection: tenant(),
    workflow: tenant(),
    workflowPublications: tenant(),
    workflowReplay: tenant(),
    workflowRevisions: tenant(),
    workflowSlas: tenant(),
    workflows: tenant(),
  },
  mutation: {
    addDocumentListEntry: tenant('reviewer'),
    addFaceListEntry: tenant('reviewer'),
    addNameListEntry: tenant('reviewer'),
    addSessionNote: tenant('reviewer'),
    applyAssignmentRules: admins(REFUSALS.operatorAdmin),
    assignSession: operators(REFUSALS.assign, 'admin'),
    bulkAction: operators(REFUSALS.workload, 'reviewer'),
    changeOwnPassword: self(REFUSALS.password),
    checkProofOfAddress: tenant('admin'),
    claimSession: operators(REFUSALS.claim, 'reviewer'),
    confirmPhoneCode: session('admin'),
    confirmTotpEnrolment: self(REFUSALS.secondFactor),
    createApiKey: admins(REFUSALS.operatorAdmin),
    createAssignmentRule: admins(REFUSALS.operatorAdmin),
    createList: tenant('admin'),
    createOperator: admins(REFUSALS.operatorAdmin),
    createReasonCode: tenant('admin'),
    createSession: tenant('admin'),
    createWebhookDestination: tenant('admin'),
    createWorkflow: tenant('admin'),
    deleteAssignmentRule: admins(REFUSALS.operatorAdmin),
    deleteList: tenant('admin'),
    deleteListEntry: tenant('reviewer'),
    deleteReasonCode: tenant('admin'),
    deleteWebhookDestination: tenant('admin'),
    deleteWorkflow: tenant('admin'),
    disableOwnTotp: self(REFUSALS.secondFactor),
    disposeAmlHit: tenant('reviewer'),
    eraseSession: tenant('admin'),
    importSharedSession: tenant('admin'),
    inviteOperator: admins(REFUSALS.operatorAdmin),
    issueCaptureNonce: session('admin'),
    nextCase: operators(REFUSALS.workload, 'reviewer'),
    publishWorkflowRevision: tenant('admin'),
    releaseSession: operators(REFUSALS.release, 'reviewer'),
    replayWebhookDelivery: tenant('reviewer'),
    requestPhoneCode: session('admin'),
    requestRetake: tenant('reviewer'),
    resetOperatorPassword: admins(REFUSALS.operatorAdmin),
    resetOperatorTotp: admins(REFUSALS.operatorAdmin),
    reviewSession: tenant('reviewer'),
    revokeApiKey: admins(REFUSALS.operatorAdmin),
    revokeOperatorInvitation: admins(REFUSALS.operatorAdmin),
    revokeServiceToken: tenant('admin'),
    rotateCallbackSecret: tenant('admin'),
    saveWorkflowDraft: tenant('admin'),
    screenAml: tenant('admin'),
    sendTestWebhook: tenant('admin'),
    setEvidenceRetention: operators(REFUSALS.evidenceRetention, 'admin'),
    setWorkflowSla: admins(REFUSALS.operatorAdmin),
    shareSession: tenant('admin'),
    startLivenessChallenge: session('admin'),
    startTotpEnrolment: self(REFUSALS.secondFactor),
    startWorkflowReplay: tenant('admin'),
    submitAmlData: session('admin'),
    submitBusinessRegistry: session('admin'),
    submitDocument: session('admin'),
    submitProofOfAddress: session('admin'),
    submitSelfie: session('admin'),
    updateFlowSettings: tenant('admin'),
    updateList: tenant('admin'),
    updateOperator: admins(REFUSALS.operatorAdmin),
    updateWebhookDestination: tenant('admin'),
    updateWorkflow: tenant('admin'),
    verifyIdDocument: tenant('admin'),
  },
  subscription: {
    hostedFlowChanged: session(),
    reviewQueue: tenant(),
    sessionStatusChanged: tenant(),
  },
};

/** The rule of a field the table does not list: a tenant field only admins may mutate. */
const UNLISTED: Record<RootOperation, FieldRule> = { query: tenant(), mutation: tenant('admin'), subscription: tenant() };

/** The rule of one root field (the unlisted default when the table lacks it). */
export function ruleOf(operation: RootOperation, field: string): FieldRule {
  return Object.hasOwn(ROOT_FIELD_RULES[operation], field) ? ROOT_FIELD_RULES[operation][field]! : UNLISTED[operation];
}

const ROLE_RANK: Record<OperatorRole, number> = { viewer: 0, reviewer: 1, admin: 2 };

/** Whether an operator of `role` may run the mutation `field`; reads and subscriptions are every role's unless for admins. */
export function roleMayMutate(role: OperatorRole, field: string): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[ruleOf('mutation', field).minRole];
}

/** The refusal of a request without any credential to an operation of the tenant. */
const NO_API_KEY = 'A valid x-api-key is required.';
/** The refusal of a request without any credential to an operation on one session. */
const NO_CREDENTIAL = 'Send the session token (x-session-token) or an API key (x-api-key).';
/** The refusal of an end-user token on an operation of the tenant. */
const END_USER_REFUSED = 'This operation needs an API key; a session token only reaches its own verification steps.';
/** The refusal of every mutation but changeOwnPassword to an operator whose password an admin chose. */
const PASSWORD_CHANGE_REQUIRED = 'An admin set your password: choose your own (changeOwnPassword) before changing anything else.';

/** A decision on one call: allowed, or refused with the error code and the message the client sees. */
export type Decision = { allowed: true } | { allowed: false; code: 'unauthenticated' | 'forbidden'; message: string };

const ALLOWED: Decision = { allowed: true };

/** Whether `principal` may call the root field `field` of `operation`, and if not, why (the guard throws it). */
export function decide(operation: RootOperation, field: string, principal: Principal | null | undefined): Decision {
  const rule = ruleOf(operation, field);
  if (!principal) return { allowed: false, code: 'unauthenticated', message: rule.audience === 'session' ? NO_CREDENTIAL : NO_API_KEY };
  if (principal.kind === 'end_user')
    return rule.audience === 'session' ? ALLOWED : { allowed: false, code: 'forbidden', message: END_USER_REFUSED };
  if (principal.kind === 'api_key') {
    if (rule.audience === 'session' || rule.audience === 'tenant') return ALLOWED;
    return { allowed: false, code: 'forbidden', message: rule.refusal!.apiKey };
  }
  if (operation === 'mutation') {
    if (principal.passwordChangeRequired && field !== 'changeOwnPassword')
      return { allowed: false, code: 'forbidden', message: PASSWORD_CHANGE_REQUIRED };
    if (!roleMayMutate(principal.role, field))
      return { allowed: false, code: 'forbidden', message: `A ${principal.role} cannot run ${field}; ask an admin of your organisation.` };
    return ALLOWED;
  }
  if (ROLE_RANK[principal.role] < ROLE_RANK[rule.minRole])
    return { allowed: false, code: 'forbidden', message: rule.refusal!.role!(principal.role) };
  return ALLOWED;
}

/** Throws the refusal of {@link decide}, for the GraphQL guard. */
export function authorizeRootField(operation: RootOperation, field: string, principal: Principal | null | undefined): void {
  const decision = decide(operation, field, principal);
  if (!decision.allowed) throw new ApiError(decision.code, decision.message);
}

/** The principal of an operation on one session (end user or tenant); 401 without one. */
export function requireCaller(principal: Principal | null | undefined): Principal {
  if (!principal) throw new ApiError('unauthenticated', NO_CREDENTIAL);
  return principal;
}

/** The tenant principal of a request made with an API key or by a signed-in operator; end-user tokens are refused. */
export function requireTenantPrincipal(principal: Principal | null | undefined): TenantPrincipal {
  if (!principal) throw new ApiError('unauthenticated', NO_API_KEY);
  if (principal.kind === 'end_user') throw new ApiError('forbidden', END_USER_REFUSED);
  return principal;
}

/** Narrows a tenant principal to an operator signed in to the console; an API key gets the operation's refusal. */
export function requireOperator(principal: TenantPrincipal, refusal: Refusal): OperatorPrincipal {
  if (principal.kind !== 'operator') throw new ApiError('forbidden', refusal.apiKey);
  return principal;
}

/** Narrows a tenant principal to an admin signed in to the console; API keys and other roles get the operation's refusal. */
export function requireAdmin(principal: TenantPrincipal, refusal: Refusal & { role: (role: OperatorRole) => string }): OperatorPrincipal {
  const operator = requireOperator(principal, refusal);
  if (operator.role !== 'admin') throw new ApiError('forbidden', refusal.role(operator.role));
  return operator;
}

/** The operator of a console route (cookie and CSRF header both right); 401 otherwise. */
export function requireSignedIn(principal: OperatorPrincipal | null | undefined): OperatorPrincipal {
  if (!principal) throw new ApiError('unauthenticated', 'Sign in to the console first.');
  return principal;
}

/** Whether a principal may see a session's tenant-owned row: same tenant and environment (the end-user token is checked by its session). */
export function tenantMaySee(principal: TenantPrincipal, row: { tenantId: string; environment: string }): boolean {
  return row.tenantId === principal.tenantId && row.environment === principal.environment;
}

/** Introspection is answered for API keys only (GraphiQL and code generators send one). */
export function mayIntrospect(principal: Principal | null | undefined): boolean {
  return principal?.kind === 'api_key';
}

/** Which credentials a REST route takes: the tenant's API key, or also the session's end-user token (the step routes). */
export type RestCredential = 'api_key' | 'api_key_or_session_token';

/** The REST facade is the tenant's API: API keys; the end-user step routes also take session tokens. 401 otherwise. */
export function requireRestCaller(principal: Principal | null | undefined, credential: RestCredential): void {
  const endUserAllowed = credential === 'api_key_or_session_token';
  const kind = principal?.kind;
  if (kind !== 'api_key' && !(endUserAllowed && kind === 'end_user'))
    throw new ApiError(
      'unauthenticated',
      endUserAllowed ? 'A valid x-api-key or x-session-token header is required.' : 'A valid x-api-key header is required.',
    );
}
