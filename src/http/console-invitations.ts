import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { acceptInvitation, peekInvitation } from '../operators/invitation.service.js';
import { unixSeconds } from '../shared/time.js';
import { CONSOLE_API_PREFIX } from './console-auth.js';

/**
 * The routes an invited person uses before having an account: who the link invites, and
 * accepting it with a password of their own. They carry no cookie (so no CSRF token); the token
 * in the body is the credential, sent in a POST body rather than a URL so no log keeps it.
 */
export function registerConsoleInvitations(app: FastifyInstance, orm: MikroORM): void {
  app.post<{ Body: { token?: unknown } }>(`${CONSOLE_API_PREFIX}/invitations/peek`, async (request, reply) => {
    const invitation = await peekInvitation(orm.em.fork(), request.body?.token);
    reply.header('cache-control', 'no-store');
    return { email: invitation.email, name: invitation.name, role: invitation.role, expires_at: unixSeconds(invitation.expiresAt) };
  });

  app.post(`${CONSOLE_API_PREFIX}/invitations/accept`, async (request, reply) => {
    const operator = await acceptInvitation(orm.em.fork(), request.body, request.ip);
    return reply
      .header('cache-control', 'no-store')
      .code(201)
      .send({ operator: { id: operator.id, email: operator.email, name: operator.name, role: operator.role } });
  });
}
