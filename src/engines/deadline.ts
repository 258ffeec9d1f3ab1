import { ApiError } from '../shared/errors.js';

/** Time budget of one engine call, in milliseconds: a document that takes longer is answered with a 503, not a hang. */
export const ENGINE_TIME_BUDGET_MS = 30_000;
/** Seconds a client is told to wait after an engine ran out of time. */
const ENGINE_RETRY_AFTER_SECONDS = 30;

/**
 * Settles with `work`, or rejects with 503 `service_unavailable` once `budgetMs` has passed and
 * calls `onTimeout` so the caller can abort what is still running (pdf.js documents, OCR jobs).
 * Work that blocks the event loop is only stopped at its next await; bounding the input (page
 * count, pixels, inflated bytes) keeps each such stretch short.
 */
export async function withTimeBudget<T>(work: Promise<T>, budgetMs: number, what: string, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(
        new ApiError('service_unavailable', `${what} took longer than ${budgetMs} ms and was stopped; retry later.`, [], {
          'Retry-After': String(ENGINE_RETRY_AFTER_SECONDS),
        }),
      );
    }, budgetMs);
  });
  // The work may still fail after the budget ran out; nobody is listening then.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
