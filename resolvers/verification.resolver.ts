import { requireCaller } from '../src/auth/authorization.js';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { NodeType } from '../src/domain/types.js';
import type { GraphQLContext } from '../src/graphql/resolver-context.js';
import * as phone from '../src/sessions/phone-step.js';
import type { NodeInput } from '../src/sessions/node-inputs.js';
import { readSession } from '../src/sessions/read.js';
import { type SessionProgress, submitNodeInput } from '../src/sessions/submit.js';
import { unixSeconds } from '../src/shared/time.js';
import {
  AmlStepInput,
  BusinessRegistryStepInput,
  DocumentStepInput,
  PhoneConfirmStepInput,
  ProofOfAddressStepInput,
  SelfieStepInput,
} from './session.input.js';
import { endUserSteps } from './end-user-steps.js';
import { PhoneCodeRequest, VerificationProgress } from './session.type.js';

/** The end user (session token in `x-session-token`) or the tenant (API key) acting on one session. */
export function principalOf(context: GraphQLContext) {
  return requireCaller(context.principal);
}

/** Shapes progress for the end user: statuses of the steps, nothing of the verdict. */
async function toProgress(context: GraphQLContext, progress: SessionProgress): Promise<VerificationProgress> {
  return {
    sessionId: progress.session.id,
    status: progress.session.status,
    expiresAt: unixSeconds(progress.session.expiresAt),
    steps: await endUserSteps(context.em, progress.session.id, progress.nodeResults),
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
