import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

/** Latest instant a timestamp input stands for, in Unix seconds (9999-12-31T23:59:59Z): later bounds filter the same. */
export const UNIX_TIME_MAX_SECONDS = 253_402_300_799;

/** Unix seconds from an input value, or a GraphQL error a client can read. */
function parseUnixTime(value: unknown): number {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return value;
    throw new GraphQLError('A UnixTime must be a whole number of seconds from 0 to 2^53 - 1, or an ISO 8601 date-time.');
  }
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    const milliseconds = Date.parse(value);
    if (!Number.isNaN(milliseconds) && milliseconds >= 0) return Math.floor(milliseconds / 1000);
  }
  throw new GraphQLError('A UnixTime must be Unix seconds (an integer) or an ISO 8601 date-time such as 2026-11-23T00:00:00Z.');
}

/**
 * Unix time in seconds, not limited to 32 bits like GraphQL's Int (which ends in January 2038).
 * Input: an integer from 0 to 2^53 − 1, or an ISO 8601 date-time string; output: an integer.
 */
export const UnixTimeScalar = new GraphQLScalarType<number, number>({
  name: 'UnixTime',
  description: 'Unix time in seconds as an integer up to 2^53 - 1 (not limited to 32 bits); inputs also take an ISO 8601 date-time string.',
  serialize(value) {
    if (value instanceof Date) return Math.floor(value.getTime() / 1000);
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    throw new GraphQLError('UnixTime cannot represent this value.');
  },
  parseValue: parseUnixTime,
  parseLiteral(ast) {
    if (ast.kind === Kind.INT) return parseUnixTime(Number(ast.value));
    if (ast.kind === Kind.STRING) return parseUnixTime(ast.value);
    throw new GraphQLError('A UnixTime literal must be an integer or a string.');
  },
});

/** The instant of a UnixTime input, bounded to what dates and the database represent. */
export function dateOfUnixTime(seconds: number): Date {
  return new Date(Math.min(seconds, UNIX_TIME_MAX_SECONDS) * 1000);
}
