import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNoteSchema } from '../../entities/review.entity.js';
import type { TenantPrincipal } from '../auth/context.js';
import { validationError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { loadSession } from './read.js';

/** Longest note, in characters: a paragraph or two of reasoning, not a document. */
export const NOTE_MAX_LENGTH = 4000;

/** A note on a session, with who wrote it. */
export interface SessionNote {
  id: string;
  sessionId: string;
  /** The operator's name, or `api_key:<id>` for a key. */
  authorName: string;
  authorOperatorId: string | null;
  body: string;
  createdAt: Date;
}

/** Adds a note to a session of the caller's scope (404 otherwise), written under the author's name. */
export async function addSessionNote(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
  body: string,
): Promise<SessionNote> {
  const text = typeof body === 'string' ? body.trim() : '';
  if (!text || text.length > NOTE_MAX_LENGTH)
    throw validationError([
      { field: 'body', code: text ? 'too_long' : 'required', message: `a note has 1 to ${NOTE_MAX_LENGTH} characters` },
    ]);
  const session = await loadSession(em, services, principal, sessionId);
  const note: SessionNote = {
    id: randomUUID(),
    sessionId: session.id,
    authorName: principal.kind === 'operator' ? principal.operatorName : `api_key:${principal.apiKeyId}`,
    authorOperatorId: principal.kind === 'operator' ? principal.operatorId : null,
    body: text,
    createdAt: new Date(),
  };
  await em.insert(SessionNoteSchema, {
    id: note.id,
    sessionId: session.id,
    tenantId: session.tenant.id,
    authorOperatorId: note.authorOperatorId,
    authorKeyId: principal.kind === 'api_key' ? principal.apiKeyId : null,
    authorName: note.authorName,
    body: note.body,
    createdAt: note.createdAt,
  });
  return note;
}

/** The notes of sessions (already scoped by the caller), oldest first. */
export async function listNotes(em: EntityManager, sessionIds: readonly string[]): Promise<SessionNote[]> {
  if (sessionIds.length === 0) return [];
  const rows = await em.find(SessionNoteSchema, { sessionId: { $in: [...sessionIds] } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return rows.map((row) => ({
    id: row.id,
    sessionId: row.sessionId,
    authorName: row.authorName,
    authorOperatorId: row.authorOperatorId ?? null,
    body: row.body,
    createdAt: new Date(row.createdAt),
  }));
}

/** A `session_note` row as selected by {@link NOTE_COLUMNS}. */
export interface SessionNoteRow {
  id: string;
  session_id: string;
  author_name: string;
  author_operator_id: string | null;
  body: string;
  created_at: Date;
}

/** The columns every read of notes selects, in {@link SessionNoteRow}'s shape. */
export const NOTE_COLUMNS = 'id, session_id, author_name, author_operator_id, body, created_at';

/** Shapes a `session_note` row as a note, for the keyset page of src/dashboard/connections.service.ts. */
export function noteOfRow(row: SessionNoteRow): SessionNote {
  return {
    id: row.id,
    sessionId: row.session_id,
    authorName: row.author_name,
    authorOperatorId: row.author_operator_id,
    body: row.body,
    createdAt: new Date(row.created_at),
  };
}
