import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { WorkflowNode } from '../entities/workflow.entity.js';
import { DEFAULT_MAX_ATTEMPTS } from '../src/domain/resubmission.js';
import type { NodeType } from '../src/domain/types.js';
import { ApiError } from '../src/errors.js';
import type { GraphQLContext } from '../src/graphql/context.js';
import * as phone from '../src/sessions/phone-step.js';
import type { NodeInput } from '../src/sessions/node-inputs.js';
import { readSession } from '../src/sessions/read.js';
import { type SessionProgress, submitNodeInput } from '../src/sessions/submit.js';
import type { NodeResultRecord } from '../src/sessions/session-record.js';
import { unixSeconds } from '../src/time.js';
import { NODE_CATALOGUE } from '../src/domain/workflow.js';
import {
  AmlStepInput,
  BusinessRegistryStepInput,
  DocumentStepInput,
  PhoneConfirmStepInput,
  ProofOfAddressStepInput,
  SelfieStepInput,
} from './session.input.js';
import { PhoneCodeRequest, VerificationProgress } from './session.type.js';

/** The end user (session token in `x-session-token`) or the tenant (API key) acting on one session. */
function principalOf(context: GraphQLContext) {
  if (!context.principal) throw new ApiError('unauthenticated', 'Send the session token (x-session-token) or an API key (x-api-key).');
  return context.principal;
}

/** Shapes progress for the end user: statuses of the steps, nothing of the verdict. */
async function toProgress(context: GraphQLContext, progress: SessionProgress): Promise<VerificationProgress> {
  // Node results are stored together at creation; the end user reads them in the workflow's order.
  const [workflow] = await context.em.execute<{ nodes: WorkflowNode[]; max_attempts: number }[]>(
    'select w.nodes, w.max_attempts from session s join workflow w on w.id = s.workflow_id where s.id = ?',
    [progress.session.id],
  );
  const maxAttempts = workflow?.max_attempts ?? DEFAULT_MAX_ATTEMPTS;
  const order = workflow?.nodes.map((node) => node.type) ?? [];
  const rank = (type: NodeType) => (order.includes(type) ? order.indexOf(type) : order.length);
  return {
    sessionId: progress.session.id,
    status: progress.session.status,
    expiresAt: unixSeconds(progress.session.expiresAt),
    steps: [...progress.nodeResults]
      .sort((a, b) => rank(a.nodeType) - rank(b.nodeType))
      .map((row: NodeResultRecord) => ({
        nodeType: row.nodeType,
        required: row.required,
        status: row.status,
        description: NODE_CATALOGUE[row.nodeType].description,
        resubmissionReason: row.resubmissionReason ?? null,
        attempts: row.attempts ?? 0,
        attemptsRemaining: Math.max(0, maxAttempts - (row.attempts ?? 0)),
      })),
  };
}

/**
 * The end user's steps: read what the workflow needs, submit each node's input. Reachable with
 * the session token of the session URL (only that session) or with the tenant's API key.
 */
@Resolver()
export class VerificationResolver {
  @Query(() => VerificationProgress, { description: "The session's steps (in its workflow's order) and their status." })
  async verificationSteps(
    @Arg('sessionId', () => String) sessionId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<VerificationProgress> {
    return toProgress(context, await readSession(context.em, context.services, principalOf(context), sessionId));
  }

  @Mutation(() => VerificationProgress, { description: 'Submits the ID document.' })
  async submitDocument(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('input', () => DocumentStepInput) input: DocumentStepInput,
    @Ctx() context: GraphQLContext,
  ): Promise<VerificationProgress> {
    return this.submit(context, sessionId, 'document_verification', input);
  }

  @Mutation(() => VerificationProgress, { description: 'Submits the selfie, matched against the document portrait.' })
  async submitSelfie(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('input', () => SelfieStepInput) input: SelfieStepInput,
    @Ctx() context: GraphQLContext,
  ): Promise<VerificationProgress> {
    return this.submit(context, sessionId, 'biometric_kyc', input);
  }

  @Mutation(() => VerificationProgress, {
    description:
      'Submits personal data for AML screening. In a workflow with a document step the identity read from the document is screened and this data is compared with it (a difference is an aml_document_mismatch warning); sent before the document, it waits for it.',
  })
  async submitAmlData(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('input', () => AmlStepInput) input: AmlStepInput,
    @Ctx() context: GraphQLContext,
  ): Promise<VerificationProgress> {
    return this.submit(context, sessionId, 'aml_screening', input);
  }

  @Mutation(() => PhoneCodeRequest, { description: 'Sends a one-time code to the phone (given, or the contact phone of the session).' })
  async requestPhoneCode(
    @Arg('sessionId', () => String) sessionId: string,
    @Ctx() context: GraphQLContext,
    @Arg('phone', () => String, { nullable: true }) phoneNumber?: string,
  ): Promise<PhoneCodeRequest> {
    const sent = await phone.requestPhoneCode(context.em, context.services, principalOf(context), sessionId, phoneNumber ?? undefined);
    return { sentTo: sent.sentTo, expiresAt: unixSeconds(sent.expiresAt) };
  }

  @Mutation(() => VerificationProgress, { description: 'Confirms the one-time code.' })
  async confirmPhoneCode(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('input', () => PhoneConfirmStepInput) input: PhoneConfirmStepInput,
    @Ctx() context: GraphQLContext,
  ): Promise<VerificationProgress> {
    return toProgress(
      context,
      await phone.confirmPhoneCode(context.em, context.services, principalOf(context), sessionId, input.code, input.phone ?? undefined),
    );
  }

  @Mutation(() => VerificationProgress, { description: 'Submits a proof-of-address document.' })
  async submitProofOfAddress(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('input', () => ProofOfAddressStepInput) input: ProofOfAddressStepInput,
    @Ctx() context: GraphQLContext,
  ): Promise<VerificationProgress> {
    return this.submit(context, sessionId, 'proof_of_address', input);
  }

  @Mutation(() => VerificationProgress, { description: 'Submits the company to look up in its registry.' })
  async submitBusinessRegistry(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('input', () => BusinessRegistryStepInput) input: BusinessRegistryStepInput,
    @Ctx() context: GraphQLContext,
  ): Promise<VerificationProgress> {
    return this.submit(context, sessionId, 'business_registry', input);
  }

  private async submit(context: GraphQLContext, sessionId: string, nodeType: NodeType, input: NodeInput): Promise<VerificationProgress> {
    return toProgress(context, await submitNodeInput(context.em, context.services, principalOf(context), sessionId, nodeType, input));
  }
}
