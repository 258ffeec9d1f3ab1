/**
 * Live `phone_verification` engine (`openkyc:sms_otp`): sends a one-time code by SMS (first
 * step) and checks the code the end user types (the node run).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Config } from '../../shared/config.js';
import type { ServiceSecrets } from '../../auth/secrets.js';
import type { CheckOutcome, PhoneVerificationDetails } from '../details.js';
import type { PhoneVerificationConfirmInput } from '../inputs.js';
import type { NodeEngine } from '../node-engine.js';
import { checkOtp, DEFAULT_OTP_NUMBER_LIMITS, issueOtp, type OtpDependencies, type OtpRecipient } from './otp.js';
import { createSmsProvider } from './sms.js';

/** Provider name of the live phone engine (src/domain/workflow.ts). */
export const LIVE_PHONE_PROVIDER = 'openkyc:sms_otp';

/** A phone engine that also sends the code the node later checks. */
export interface CodeSendingEngine extends NodeEngine<PhoneVerificationConfirmInput> {
  /** Issues and sends a code for the session's step; throws `rate_limited` or `service_unavailable`. */
  sendCode(recipient: OtpRecipient): Promise<{ expiresAt: Date }>;
}

/** True for engines that send their own codes (live); the sandbox sends none. */
export function sendsCodes(engine: NodeEngine): engine is CodeSendingEngine {
  return typeof (engine as Partial<CodeSendingEngine>).sendCode === 'function';
}

/** Line types a bank-grade flow treats with suspicion: reachable by SMS but not tied to a person's handset. */
const RISKY_LINE_TYPES = new Set(['VOIP', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL']);

/** `line_risk` from the number's type in libphonenumber's full metadata (offline; no carrier lookup). */
export function lineRisk(phone: string): CheckOutcome {
  const type = parsePhoneNumberFromString(phone)?.getType();
  if (!type) return 'skipped';
  return RISKY_LINE_TYPES.has(type) ? 'warning' : 'passed';
}

/** Creates the live phone engine from the code store's dependencies. */
export function createLivePhoneEngine(dependencies: OtpDependencies): CodeSendingEngine {
  return {
    provider: LIVE_PHONE_PROVIDER,
    nodeType: 'phone_verification',
    sendCode: (recipient) => issueOtp(dependencies, recipient),
    async run(input, context) {
      const check = await checkOtp(
        dependencies,
        { tenantId: context.tenantId, sessionId: context.sessionId, phone: input.phone },
        input.code,
      );
      const verified = check.outcome === 'verified';
      const details: PhoneVerificationDetails = {
        resultCode: verified ? 'clear' : 'attempts_exhausted',
        phone: input.phone,
        checks: { codeMatch: verified ? 'passed' : 'failed', lineRisk: verified ? lineRisk(input.phone) : 'skipped' },
      };
      return { status: verified ? 'passed' : 'failed', provider: LIVE_PHONE_PROVIDER, warnings: [], details };
    },
  };
}

/** What the registry hands the factory (a subset of its LiveEngineDependencies). */
export interface LivePhoneEngineDependencies {
  /** A fresh EntityManager per call. */
  em(): EntityManager;
  secrets: ServiceSecrets;
  config: Pick<Config, 'SMS_PROVIDER' | 'SMS_GATEWAY_URL' | 'SMS_GATEWAY_TOKEN'> &
    Partial<Pick<Config, 'OTP_MAX_NUMBERS_PER_SESSION' | 'OTP_MAX_NUMBERS_PER_TENANT_HOUR'>>;
  logger: Logger;
}

/** Registry factory: builds the SMS provider from configuration and the engine around it. */
export function livePhoneEngineFactory(dependencies: LivePhoneEngineDependencies): CodeSendingEngine {
  return createLivePhoneEngine({
    em: dependencies.em,
    secrets: dependencies.secrets,
    logger: dependencies.logger,
    sms: createSmsProvider(dependencies.config, dependencies.logger),
    numberLimits: {
      perSession: dependencies.config.OTP_MAX_NUMBERS_PER_SESSION ?? DEFAULT_OTP_NUMBER_LIMITS.perSession,
      perTenant: dependencies.config.OTP_MAX_NUMBERS_PER_TENANT_HOUR ?? DEFAULT_OTP_NUMBER_LIMITS.perTenant,
    },
  });
}
