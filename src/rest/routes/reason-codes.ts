import { z } from 'zod';
import {
  CreateReasonCodeDocument,
  DeleteReasonCodeDocument,
  ListReasonCodesDocument,
  type ReasonCodeFieldsFragment,
} from '../../graphql/generated/operations.js';
import { END_USER_MESSAGES, REASON_CATEGORIES, REASON_SEVERITIES } from '../../domain/reasons.js';
import { defineRoute } from '../route.js';

/** A reason code as REST writes it. */
export const ReasonCodeJson = z.object({
  code: z.string(),
  category: z.enum(REASON_CATEGORIES),
  severity: z.enum(REASON_SEVERITIES),
  retryable: z.boolean(),
  reviewer_text: z.string(),
  end_user_message: z.enum(END_USER_MESSAGES),
  built_in: z.boolean(),
});

/** Shapes a code for REST. */
function presentReasonCode(code: ReasonCodeFieldsFragment): z.infer<typeof ReasonCodeJson> {
  return {
    code: code.code,
    category: code.category as z.infer<typeof ReasonCodeJson>['category'],
    severity: code.severity as z.infer<typeof ReasonCodeJson>['severity'],
    retryable: code.retryable,
    reviewer_text: code.reviewerText,
    end_user_message: code.endUserMessage as z.infer<typeof ReasonCodeJson>['end_user_message'],
    built_in: code.builtIn,
  };
}

/** Body of `POST /v1/reason-codes`: the shape here, the values (code pattern, built-in clash) in the service. */
const ReasonCodeBody = z
  .object({
    code: z.string().max(64),
    category: z.string(),
    severity: z.string(),
    retryable: z.boolean(),
    reviewer_text: z.string().max(300),
    end_user_message: z.string(),
  })
  .strict();

/** The reason catalogue's routes: read it, and add or remove a tenant's own codes. */
export const reasonCodeRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/reason-codes',
    operationId: 'listReasonCodes',
    summary: "Every reason code reviewers may pick in the key's environment: the built-in catalogue, then your own.",
    tag: 'Reason codes',
    operation: ListReasonCodesDocument,
    variables: () => ({}),
    status: 200,
    present: (data) => ({ reason_codes: data.reasonCodes.map(presentReasonCode) }),
    response: z.object({ reason_codes: z.array(ReasonCodeJson) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/reason-codes',
    operationId: 'createReasonCode',
    summary: "Adds a reason code of your own in the key's environment (a built-in code answers 400, an existing one 409).",
    tag: 'Reason codes',
    operation: CreateReasonCodeDocument,
    body: ReasonCodeBody,
    variables: ({ body }) => ({
      input: {
        code: body.code,
        category: body.category,
        severity: body.severity,
        retryable: body.retryable,
        reviewerText: body.reviewer_text,
        endUserMessage: body.end_user_message,
      },
    }),
    status: 201,
    present: (data) => presentReasonCode(data.createReasonCode),
    response: ReasonCodeJson,
    problems: ['conflict'],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/reason-codes/:code',
    operationId: 'deleteReasonCode',
    summary: 'Removes a reason code of your own; decisions that used it keep its category and retryable.',
    tag: 'Reason codes',
    operation: DeleteReasonCodeDocument,
    params: z.object({ code: z.string().max(64) }),
    variables: ({ params }) => ({ code: params.code }),
    status: 204,
    present: () => undefined,
  }),
];
