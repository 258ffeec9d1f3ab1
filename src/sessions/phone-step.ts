import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema } from '../../entities/session.entity.js';
import type { Principal } from '../auth/context.js';
import { sendsCodes } from '../engines/phone/engine.js';
import { ApiError, validationError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { parseOrThrow } from '../shared/validation.js';
import { PhoneNumber } from '../shared/input-rules.js';
import { assertAcceptsInput, submitNodeInput, type SessionProgress } from './submit.js';
import { loadSession } from './read.js';
import { workflowOfSession } from '../workflows/revisions.js';
import { storedDetailsOf, type StoredNodeDetails } from './stored-node-details.js';

/** How long a one-time code stays valid, in seconds (10 minutes). */
export const PHONE_CODE_TTL_SECONDS = 10 * 60;

/** Masks a phone number except its last three digits. */
export function maskPhone(e164: string): string {
  return e164.slice(0, 3) + '•'.repeat(Math.max(0, e164.length - 6)) + e164.slice(-3);
}

/**
 * First phone step: validates the number (given, or the session's contact phone) and has the
 * node's provider send a code. The number is remembered on the pending node result so the
 * confirm step only needs the code.
 */
export async function requestPhoneCode(
  em: EntityManager,
  services: Services,
  principal: Principal,
  sessionId: string,
  phoneInput: string | undefined,
): Promise<{ sentTo: string; expiresAt: Date }> {
  const session = await loadSession(em, services, principal, sessionId);
  assertAcceptsInput(session);
  const workflow = await workflowOfSession(em, session);
  const node = workflow.nodes.find((candidate) => candidate.type === 'phone_verification');
  if (!node)
    throw validationError([
      { field: 'node_type', code: 'not_in_workflow', message: `workflow ${workflow.id} has no phone_verification step` },
    ]);
  const result = await em.findOne(SessionNodeResultSchema, { sessionId, nodeType: 'phone_verification' });
  if (result && result.status !== 'pending')
    throw new ApiError('conflict', `The phone_verification step is already complete (${result.status}).`);
  const raw = phoneInput ?? session.contactDetails?.phone;
  if (!raw)
    throw validationError([{ field: 'phone', code: 'required', message: 'phone is required (no contact phone was given at creation)' }]);
  const phone = parseOrThrow(PhoneNumber, raw, 'phone');
  // Refuses live sessions whose provider has no engine here, exactly as submissions do.
  const engine = services.engines.engineFor(session.environment, 'phone_verification', node.provider);
  // Live engines send a real code (own transaction: none is open here); the sandbox sends nothing.
  const expiresAt = sendsCodes(engine)
    ? (await engine.sendCode({ tenantId: session.tenant.id, sessionId: session.id, phone })).expiresAt
    : new Date(Date.now() + PHONE_CODE_TTL_SECONDS * 1000);
  if (result) {
    const requested: Partial<StoredNodeDetails['phone_verification']> = { phone, code_requested_at: Math.floor(Date.now() / 1000) };
    result.details = { ...result.details, ...requested };
    result.updatedAt = new Date();
    await em.flush();
  }
  return { sentTo: maskPhone(phone), expiresAt };
}

/** Second phone step: runs the node with the code and the number it was requested for. */
export async function confirmPhoneCode(
  em: EntityManager,
  services: Services,
  principal: Principal,
  sessionId: string,
  code: string,
  phoneInput: string | undefined,
): Promise<SessionProgress> {
  await loadSession(em, services, principal, sessionId);
  const result = await em.findOne(SessionNodeResultSchema, { sessionId, nodeType: 'phone_verification' });
  const phone = phoneInput ?? storedDetailsOf(result, 'phone_verification').phone;
  if (!phone)
    throw validationError([
      { field: 'phone', code: 'required', message: 'request a code first (requestPhoneCode) or give the phone number' },
    ]);
  return submitNodeInput(em, services, principal, sessionId, 'phone_verification', { phone, code });
}
