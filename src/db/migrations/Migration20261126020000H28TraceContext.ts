import { Migration } from '@mikro-orm/migrations';

/**
 * The W3C trace context (`traceparent`, `tracestate`) of the request that recorded an event, kept
 * with the event and copied to each of its webhook deliveries, so the emitter's POST (seconds
 * later, maybe in another process) continues that request's trace and sends its `traceparent`.
 * Null where no trace was active.
 */
export class Migration20261126020000H28TraceContext extends Migration {
  override name = 'Migration20261126020000H28TraceContext';

  override up(): void {
    this.addSql(`alter table outbox_event add column trace_context jsonb null;`);
    this.addSql(`alter table webhook_delivery add column trace_context jsonb null;`);
  }

  override down(): void {
    this.addSql(`alter table webhook_delivery drop column if exists trace_context;`);
    this.addSql(`alter table outbox_event drop column if exists trace_context;`);
  }
}
