import type { FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema } from '../../entities/session.entity.js';
import { ApiError } from '../errors.js';
import type { Services } from '../services.js';
import { loadSession } from '../sessions/session.service.js';
import { NODE_CATALOGUE } from '../workflows/node-catalogue.js';

/** Escapes text for HTML. */
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The page a session's `url` opens: the session's status and the steps left, for the end user.
 * Capture (camera, upload) belongs to the integrator's front end, which submits each step through
 * GraphQL with the token of this URL as `x-session-token`; the page says so.
 */
export function registerVerifyPage(app: FastifyInstance, orm: MikroORM, services: Services): void {
  app.get<{ Params: { session_id: string }; Querystring: { token?: string } }>('/verify/:session_id', async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    const em = orm.em.fork();
    let body: string;
    try {
      const session = await loadSession(em, services, { kind: 'end_user', token }, request.params.session_id);
      const steps = await em.find(SessionNodeResultSchema, { sessionId: session.id }, { orderBy: { createdAt: 'asc', nodeType: 'asc' } });
      const rows = steps
        .map(
          (step) =>
            `<li><strong>${escapeHtml(NODE_CATALOGUE[step.nodeType].description)}</strong> — ${escapeHtml(step.status)}${step.required ? '' : ' (optional)'}</li>`,
        )
        .join('');
      body = `<h1>Identity verification</h1><p>Status: <strong>${escapeHtml(session.status)}</strong></p><ol>${rows}</ol>
        <p>Your provider's app completes these steps with this link's token (GraphQL <code>/graphql</code>, header <code>x-session-token</code>).</p>`;
      reply.code(200);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      body = '<h1>Identity verification</h1><p>This verification link is not valid.</p>';
      reply.code(404);
    }
    return reply
      .type('text/html; charset=utf-8')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Identity verification</title></head><body>${body}</body></html>`,
      );
  });
}
