import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { openEvidence } from '../evidence/evidence.service.js';
import type { Services } from '../services.js';

/**
 * Evidence files behind short-lived signed URLs (`Session.evidence` hands them to operators).
 * The file is never cached and cannot run anything: a sandboxed CSP and nosniff, so a PDF or an
 * image with odd bytes stays a file.
 */
export function registerEvidenceRoute(app: FastifyInstance, orm: MikroORM, services: Services): void {
  app.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>('/console/evidence/:id', async (request, reply) => {
    const opened = await openEvidence(orm.em.fork(), services, request.params.id, request.query, request.ip);
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
