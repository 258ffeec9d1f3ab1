import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { NodeType } from '../src/domain/types.js';
import type { GraphQLContext } from '../src/graphql/context.js';
import { issueNonce } from '../src/sessions/capture-integrity.js';
import { unixSeconds } from '../src/time.js';
import { NodeTypeEnum } from './enums.js';
import { CaptureNonceObject } from './capture.type.js';
import { principalOf } from './verification.resolver.js';

/** Capture integrity: the nonce the hosted flow asks for as it takes a photo (docs/capture-integrity.md). */
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
}
