/**
 * PostgreSQL schema pg-boss keeps its tables in: the feature jobs (src/jobs/) and the engine queue
 * (src/engines/pool/queue-executor.ts) share it. A module of its own, so a worker process loads no ORM for it.
 */
export const JOBS_SCHEMA = 'pgboss';
