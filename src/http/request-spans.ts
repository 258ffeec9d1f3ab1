/**
 * A server span per HTTP request, child of the caller's `traceparent` when it sends one, active
 * for everything the request does (GraphQL, SQL, engine tasks, the events it records), named by
 * the route pattern when the answer is sent. GraphQL operations over `/graphql` get a span of
 * their own, named by their type and first root field.
 */
import { context, propagation, ROOT_CONTEXT, trace, type Context, type Span } from '@opentelemetry/api';
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { endSpan, SpanKind, tracer } from '../observability/tracing.js';
import { operationLabel } from './metrics-endpoint.js';

/** The span and context a request runs in. */
const requestTraces = new WeakMap<FastifyRequest, { span: Span; context: Context }>();

/** Installs the request span: started on arrival, active from the pre-handler on, ended with the answer. */
export function traceRequests(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer().startSpan(
      `${request.method}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'url.path': request.url.split('?')[0], 'http.request.id': request.id },
      },
      parent,
    );
    requestTraces.set(request, { span, context: trace.setSpan(parent, span) });
  });
  // Body parsing runs outside the request's async context; the work from here on runs inside it.
  app.addHook('preHandler', (request, _reply, done) => {
    const traced = requestTraces.get(request);
    if (!traced) return done();
    context.with(traced.context, done);
  });
  app.addHook('onResponse', async (request, reply) => {
    const traced = requestTraces.get(request);
    if (!traced) return;
    const route = request.routeOptions.url ?? 'unmatched';
    traced.span.updateName(`${request.method} ${route}`);
    traced.span.setAttributes({ 'http.route': route, 'http.response.status_code': reply.statusCode });
    endSpan(traced.span, reply.statusCode >= 500 ? `HTTP ${reply.statusCode}` : undefined);
  });
}

/** Apollo plugin: a span per GraphQL operation over `/graphql`, inside the request's span. */
export function tracingApolloPlugin<Context extends object>(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      const span = tracer().startSpan('graphql', { kind: SpanKind.INTERNAL });
      return {
        async didResolveOperation({ operation }) {
          if (!operation) return;
          span.updateName(`graphql ${operation.operation} ${operationLabel(operation)}`);
          span.setAttributes({ 'graphql.operation.type': operation.operation, 'graphql.operation.field': operationLabel(operation) });
        },
        async willSendResponse({ response }) {
          const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
          endSpan(span, errors?.length ? errors.map((error) => error.extensions?.code ?? error.message).join(', ') : undefined);
        },
      };
    },
  };
}
