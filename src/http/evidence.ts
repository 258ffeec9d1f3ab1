import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { openEvidence } from '../evidence/evidence.service.js';
import { operatorForToken } from '../operators/operator.service.js';
import type { Services } from '../services.js';
import { consoleTokenFrom } from './console-auth.js';

/**
 * Evidence files behind short-lived signed URLs (`Session.evidence` hands them to operators),
 * opened only with the console cookie of the sign-in they were signed for (audit N13): the
 * cookie is HttpOnly and SameSite=Strict, so an `<img>` of the console sends it and a link
 * pasted elsewhere does not work. No CSRF token is asked: this GET changes nothing but the audit.
 * The file is never cached and cannot run anything: a sandboxed CSP and nosniff, so a PDF or an
 * image with odd bytes stays a file.
 */
export function registerEvidenceRoute(app: FastifyInstance, orm: MikroORM, services: Services): void {
  app.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>('/console/evidence/:id', async (request, reply) => {
    const em = orm.em.fork();
    const viewer = await operatorForToken(em, consoleTokenFrom(request.headers));
    const opened = await openEvidence(em, services, request.params.id, request.query, viewer, request.ip);
    return reply
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('referrer-policy', 'no-referrer')
      .header('content-disposition', 'inline')
      .type(opened.contentType)
      .send(opened.bytes);
  });
}
