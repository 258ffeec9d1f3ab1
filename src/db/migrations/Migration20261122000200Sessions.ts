import { Migration } from '@mikro-orm/migrations';

/**
 * Sessions, node results, the status audit log, the event outbox, service tokens and their
 * signing keys. Idempotent creation rests on a partial unique index, not on read-then-write.
 */
export class Migration20261122000200Sessions extends Migration {
  override name = 'Migration20261122000200Sessions';

  override up(): void {
    this.addSql(`create table session (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      workflow_id text not null references workflow (id),
      vendor_data text not null,
      status text not null check (status in ('pending', 'in_progress', 'in_review', 'approved', 'declined', 'expired')),
      callback text null,
      metadata jsonb null,
      contact_details jsonb null,
      expected_details jsonb null,
      warnings jsonb not null default '[]',
      reasons jsonb not null default '[]',
      compliance_level text null,
      aml_score integer null,
      imported_from text null,
      created_by_key_id uuid null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      expires_at timestamptz not null,
      decided_at timestamptz null
    );`);
    // One active session per (tenant, environment, workflow, vendor_data): concurrent creates
    // collide here and the loser reads the winner's row.
    this.addSql(`create unique index session_active_idempotency_index on session (tenant_id, environment, workflow_id, vendor_data)
      where status in ('pending', 'in_progress', 'in_review');`);
    this.addSql(`create index session_tenant_created_index on session (tenant_id, environment, created_at desc, id desc);`);
    this.addSql(`create index session_expiry_index on session (expires_at) where status in ('pending', 'in_progress');`);
    this.addSql(`create index session_workflow_index on session (workflow_id) where status in ('pending', 'in_progress', 'in_review');`);

    this.addSql(`create table session_node_result (
      session_id uuid not null references session (id) on delete cascade,
      node_type text not null,
      status text not null check (status in ('pending', 'passed', 'failed', 'review', 'skipped')),
      required boolean not null,
      provider text not null,
      warnings jsonb not null default '[]',
      details jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (session_id, node_type)
    );`);

    this.addSql(`create table session_status_change (
      id uuid primary key,
      session_id uuid not null references session (id) on delete cascade,
      tenant_id uuid not null,
      from_status text null,
      to_status text not null,
      actor text not null,
      actor_key_id uuid null,
      reason text null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create index session_status_change_session_index on session_status_change (session_id, created_at, id);`);

    this.addSql(`create table outbox_event (
      seq bigserial primary key,
      id uuid not null unique,
      tenant_id uuid not null,
      type text not null,
      session_id uuid null,
      payload jsonb not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create index outbox_event_tenant_index on outbox_event (tenant_id, seq);`);

    this.addSql(`create table signing_key (
      kid text primary key,
      algorithm text not null,
      public_jwk jsonb not null,
      private_key_encrypted text not null,
      active boolean not null default true,
      created_at timestamptz not null default now()
    );`);

    this.addSql(`create table service_token (
      jti uuid primary key,
      session_id uuid not null references session (id) on delete cascade,
      tenant_id uuid not null,
      token_encrypted text not null,
      issued_at timestamptz not null,
      expires_at timestamptz not null,
      revoked_at timestamptz null,
      revoked_reason text null
    );`);
    this.addSql(`create index service_token_session_index on service_token (session_id);`);
  }

  override down(): void {
    for (const table of ['service_token', 'signing_key', 'outbox_event', 'session_status_change', 'session_node_result', 'session']) {
      this.addSql(`drop table if exists ${table};`);
    }
  }
}
