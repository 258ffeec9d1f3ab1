import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { SessionSchema } from '../entities/session.entity.js';
import type { WorkflowCaptureMode, WorkflowLivenessMode } from '../entities/workflow.entity.js';
import type { NodeType } from '../src/domain/types.js';
import type { GraphQLContext } from '../src/graphql/resolver-context.js';
import { issueLivenessChallenge } from '../src/sessions/active-liveness.js';
import { issueNonce } from '../src/sessions/capture-integrity.js';
import { unixSeconds } from '../src/shared/time.js';
import { NodeTypeEnum, WorkflowCaptureEnum, WorkflowLivenessEnum } from './enums.js';
import { CaptureNonceObject, LivenessChallengeObject } from './capture.type.js';
import { HostedFlow } from './flow-settings.resolver.js';
import { principalOf } from './verification.resolver.js';

/** Capture integrity and active liveness: what the hosted flow asks for as it takes photos (docs/capture-integrity.md). */
@Resolver()
export class CaptureResolver {
  @Mutation(() => CaptureNonceObject, {
    description:
      'Issues a signed, single-use nonce (valid 5 minutes) for one camera capture of a photo step; send it back in the step input captures.',
  })
  async issueCaptureNonce(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('nodeType', () => NodeTypeEnum) nodeType: NodeType,
    @Ctx() context: GraphQLContext,
  ): Promise<CaptureNonceObject> {
    const issued = await issueNonce(context.em, context.services, principalOf(context), sessionId, nodeType, 'capture');
    return { nonce: issued.nonce, expiresAt: unixSeconds(issued.expiresAt) };
  }

  @Mutation(() => LivenessChallengeObject, {
    description: 'Issues a single-use head-turn challenge (valid 5 minutes) for the selfie step; answer it in the selfie input liveness.',
  })
  async startLivenessChallenge(
    @Arg('sessionId', () => String) sessionId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<LivenessChallengeObject> {
    const issued = await issueLivenessChallenge(context.em, context.services, principalOf(context), sessionId);
    return { nonce: issued.nonce, expiresAt: unixSeconds(issued.expiresAt), moves: issued.moves };
  }
}

/** The session workflow's capture options on the hosted flow's query, so the page knows what to ask for. */
@Resolver(() => HostedFlow)
export class HostedFlowCaptureResolver {
  @FieldResolver(() => WorkflowCaptureEnum, { description: "The workflow's capture option: camera asks for the camera." })
  async capture(@Root() flow: HostedFlow, @Ctx() context: GraphQLContext): Promise<WorkflowCaptureMode> {
    return (await optionsOf(context, flow.sessionId)).capture;
  }

  @FieldResolver(() => WorkflowLivenessEnum, { description: "The workflow's liveness option: active asks for a head-turn challenge." })
  async liveness(@Root() flow: HostedFlow, @Ctx() context: GraphQLContext): Promise<WorkflowLivenessMode> {
    return (await optionsOf(context, flow.sessionId)).liveness;
  }
}

/** The capture options of a session's workflow (the session was read, and its access checked, by hostedFlow). */
async function optionsOf(
  context: GraphQLContext,
  sessionId: string,
): Promise<{ capture: WorkflowCaptureMode; liveness: WorkflowLivenessMode }> {
  // Kept out of the identity map: the request's session entity, if any, stays whole.
  const session = await context.em.findOne(
    SessionSchema,
    { id: sessionId },
    { fields: ['workflow.capture', 'workflow.liveness'], disableIdentityMap: true },
  );
  const workflow = session?.workflow.getEntity();
  return workflow ? { capture: workflow.capture, liveness: workflow.liveness } : { capture: 'any', liveness: 'passive' };
}
