/**
 * OpenTelemetry traces. Spans are made where the work is (HTTP requests, GraphQL operations, SQL
 * statements, engine tasks, webhook POSTs) through `@opentelemetry/api`; the W3C `traceparent`
 * travels with the work where it leaves the process or the request: into an engine job's data
 * (worker processes), into the outbox event a request commits (so the emitter's POST, seconds
 * later and maybe in another process, continues the request's trace) and onto the POST itself.
 *
 * The propagator and the async context are installed always (cheap; an incoming `traceparent`
 * is carried on even when nothing is exported). Spans are recorded and exported only when
 * OTEL_EXPORTER_OTLP_ENDPOINT names an OTLP/HTTP collector.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** Name of the tracer the service's spans come from. */
const TRACER_NAME = 'openkyc';
/** Longest a finished span waits in the batch before export, in milliseconds. */
const EXPORT_DELAY_MS = 500;

/** Settings of {@link startTracing}. */
export interface TracingSettings {
  /** OTLP/HTTP collector base URL (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to `<endpoint>/v1/traces`. */
  endpoint?: string;
  /** `service.name` of this process's spans (OTEL_SERVICE_NAME), e.g. `openkyc-api`, `openkyc-worker`. */
  serviceName: string;
}

/** The process's tracing: how to flush and stop it. */
export interface Tracing {
  /** Exports the spans finished so far (tests, shutdown). */
  flush(): Promise<void>;
  /** Exports what is left; the provider itself lives as long as the process (other apps of it may still trace). */
  stop(): Promise<void>;
}

let installed = false;
let provider: TracerProvider | null = null;

/** Installs the W3C propagator and the async context once per process (idempotent). */
function installContext(): void {
  if (installed) return;
  installed = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

/**
 * Starts tracing for one app or process. Several apps in one process (tests) share the first
 * one's provider: OpenTelemetry's provider is global to the process.
 */
export function startTracing(settings: TracingSettings): Tracing {
  installContext();
  if (settings.endpoint && !provider) {
    const url = `${settings.endpoint.replace(/\/+$/, '')}/v1/traces`;
    provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
      spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }), scheduledDelayMillis: EXPORT_DELAY_MS })],
    });
    trace.setGlobalTracerProvider(provider);
  }
  let stopped = false;
  return {
    flush: async () => {
      await provider?.forceFlush();
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await provider?.forceFlush();
    },
  };
}

/** The service's tracer (a no-op one until a provider is installed). */
export function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** Whether spans are being recorded (an exporter is configured): lets hot paths skip span work otherwise. */
export function tracingActive(): boolean {
  return provider !== null;
}

/** The current context's `traceparent` (and `tracestate`) as a plain carrier, to store or send along. */
export function currentTraceCarrier(ctx: Context = context.active()): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** The context a stored or received carrier names (the root context when none). */
export function contextFromCarrier(carrier: Record<string, unknown> | null | undefined): Context {
  if (!carrier) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier, {
    get: (source, key) => (typeof source[key] === 'string' ? (source[key] as string) : undefined),
    keys: (source) => Object.keys(source),
  });
}

/** The active span's trace id, for log lines; undefined outside any trace. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan();
  const spanContext = span?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** Ends `span` with an error status when `error` is given, ok otherwise. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    if (error instanceof Error) span.recordException(error);
  }
  span.end();
}

/** Runs `work` in a new span (child of the active one), ending it with the outcome. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      const result = await work(span);
      endSpan(span);
      return result;
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  });
}

/** Records a finished SQL statement as a client span ending now (MikroORM reports statements after they ran). */
export function recordStatementSpan(statement: string, tookMs: number | undefined, failed: boolean): void {
  if (!provider || !trace.getActiveSpan()) return;
  const end = Date.now();
  const span = tracer().startSpan('db.query', {
    kind: SpanKind.CLIENT,
    startTime: end - (tookMs ?? 0),
    attributes: { 'db.system.name': 'postgresql', 'db.query.text': statement.slice(0, 2_000) },
  });
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(end);
}

/**
 * A span per engine task, child of the request (or job) that asked for it: started when the task
 * is queued, marked when it gets a thread, ended with its outcome. Shaped as an engine observer's timing.
 */
export function traceEngineTask(engine: string): { started(): void; finished(outcome: string): void } {
  if (!provider) return { started: () => undefined, finished: () => undefined };
  const span = tracer().startSpan(`engine ${engine}`, { kind: SpanKind.INTERNAL, attributes: { 'engine.name': engine } });
  return {
    started: () => span.addEvent('started'),
    finished: (outcome) => {
      span.setAttribute('engine.outcome', outcome);
      endSpan(span, outcome === 'ok' ? undefined : outcome);
    },
  };
}

export { SpanKind };
