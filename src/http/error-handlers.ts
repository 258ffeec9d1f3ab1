import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, fromDatabaseError, toProblem, type ErrorCode } from '../shared/errors.js';

/** Maps an HTTP status fastify chose (bad JSON, body too large) to our catalogue. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  431: 'headers_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/** Converts anything thrown while handling a request into a catalogue error; `bodyLimitBytes` is quoted in a 413. */
export function toApiError(error: unknown, bodyLimitBytes?: number): ApiError {
  if (error instanceof ApiError) return error;
  const fromDatabase = fromDatabaseError(error);
  if (fromDatabase) return fromDatabase;
  const fastifyError = error as Partial<FastifyError>;
  const status = fastifyError.statusCode;
  if (status === undefined || status >= 500) return new ApiError('internal_error', 'The server failed to handle the request.');
  const isJsonProblem =
    fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    fastifyError instanceof SyntaxError ||
    fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY';
  if (status === 400 && isJsonProblem) return new ApiError('malformed_json', 'The body is not valid JSON.');
  if (status === 413)
    return new ApiError(
      'payload_too_large',
      bodyLimitBytes ? `The body is larger than the limit of ${bodyLimitBytes} bytes.` : 'The body is too large.',
    );
  if (status === 415) return new ApiError('unsupported_media_type', 'The body must be JSON: send it with Content-Type: application/json.');
  const code = CODE_BY_STATUS[status] ?? 'validation_failed';
  return new ApiError(code, fastifyError.message);
}

/** Fastify error handler: RFC 9457 problem details for every error; 5xx are logged with their stack. */
export function problemErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const apiError = toApiError(error, request.routeOptions?.bodyLimit ?? request.server.initialConfig.bodyLimit);
  if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
  return reply
    .code(apiError.status)
    .headers(apiError.headers)
    .type('application/problem+json')
    .send(toProblem(apiError, request.url.split('?')[0]));
}

/** Fastify not-found handler: unknown routes are problem details too, with the catalogue's `not_found`. */
export function problemNotFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const error = new ApiError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`);
  return reply
    .code(404)
    .type('application/problem+json')
    .send(toProblem(error, request.url.split('?')[0]));
}

/**
 * Answers what Node's HTTP parser refuses before any route runs (a header section over its 16 KB
 * limit, a request that is not HTTP) with problem details too; a reset or timed-out socket is
 * only closed.
 */
export function problemClientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || socket.destroyed || !socket.writable) {
    socket.destroy(error);
    return;
  }
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('headers_too_large', 'The request headers are larger than the limit of 16 KB.')
      : new ApiError('validation_failed', 'The request is not valid HTTP.');
  const body = JSON.stringify(toProblem(apiError, '/'));
  socket.end(
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
