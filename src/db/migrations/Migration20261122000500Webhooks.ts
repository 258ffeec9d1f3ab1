import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook destinations, deliveries (one per event and target) and their attempts, plus the
 * emitter's fan-out bookkeeping: a marker per outbox event turned into deliveries, and a
 * watermark below which every event is known to be done (so markers can be pruned).
 */
export class Migration20261122000500Webhooks extends Migration {
  override name = 'Migration20261122000500Webhooks';

  override up(): void {
    this.addSql(`create table webhook_destination (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      url text not null,
      version text not null check (version in ('v1', 'v2', 'v3')),
      events jsonb null,
      active boolean not null default true,
      secret_encrypted text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );`);
    this.addSql(`create index webhook_destination_tenant_index on webhook_destination (tenant_id, created_at, id);`);

    this.addSql(`create table webhook_delivery (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      event_id uuid null,
      event_type text not null,
      session_id uuid null,
      destination_id uuid null references webhook_destination (id) on delete cascade,
      callback_url text null,
      target text not null,
      body text not null,
      status text not null check (status in ('pending', 'succeeded', 'failed', 'dead')),
      attempt_count integer not null default 0,
      schedule_position integer not null default 0,
      next_attempt_at timestamptz null,
      last_status_code integer null,
      last_error text null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );`);
    // One delivery per (event, target), so a fan-out run twice creates nothing new.
    this.addSql(
      `create unique index webhook_delivery_event_target_index on webhook_delivery (event_id, target) where event_id is not null;`,
    );
    this.addSql(`create index webhook_delivery_due_index on webhook_delivery (next_attempt_at) where status = 'pending';`);
    this.addSql(`create index webhook_delivery_destination_index on webhook_delivery (destination_id, created_at desc, id desc);`);
    this.addSql(
      `create index webhook_delivery_session_index on webhook_delivery (session_id, created_at desc, id desc) where session_id is not null;`,
    );

    this.addSql(`create table webhook_attempt (
      id uuid primary key,
      delivery_id uuid not null references webhook_delivery (id) on delete cascade,
      tenant_id uuid not null,
      attempted_at timestamptz not null,
      status text not null check (status in ('succeeded', 'failed')),
      status_code integer null,
      duration_ms integer not null,
      error text null,
      response_body text null,
      next_attempt_at timestamptz null
    );`);
    this.addSql(`create index webhook_attempt_delivery_index on webhook_attempt (delivery_id, attempted_at, id);`);

    this.addSql(`create table webhook_fanout (
      event_seq bigint primary key,
      processed_at timestamptz not null default now()
    );`);
    this.addSql(`create table webhook_cursor (
      id integer primary key check (id = 1),
      seq bigint not null
    );`);
    // Events recorded before webhooks existed are not delivered retroactively.
    this.addSql(`insert into webhook_cursor (id, seq) select 1, coalesce(max(seq), 0) from outbox_event;`);
  }

  override down(): void {
    for (const table of ['webhook_cursor', 'webhook_fanout', 'webhook_attempt', 'webhook_delivery', 'webhook_destination']) {
      this.addSql(`drop table if exists ${table};`);
    }
  }
}
