import { Migration } from '@mikro-orm/migrations';

/** The column check every new `environment` column carries. */
const ENVIRONMENT_CHECK = `check (environment in ('live', 'sandbox'))`;

/**
 * Every tenant-owned object belongs to one environment (docs/design.md "Tenancy and environments"), as sessions,
 * share tokens and ledger entries already did. Existing rows are assigned deliberately:
 * - rows that hang off a session (webhook deliveries and their attempts, phone codes, outbox
 *   events) take their session's environment;
 * - list entries added by a key whose environment is known follow that key: an entry a sandbox
 *   key put in a built-in list moves to the tenant's sandbox built-in list of that type (created
 *   here when missing); other entries take their list's environment;
 * - everything else made before this change (custom workflows, lists, webhook destinations,
 *   test deliveries, standalone check results) belongs to `live`: no creating key was recorded.
 * Built-in workflows stay shared: their environment is null.
 */
export class Migration20261123000100Environments extends Migration {
  override name = 'Migration20261123000100Environments';

  override up(): void {
    // Custom workflows: live; built-ins (no tenant) have none.
    this.addSql(`alter table workflow add column environment text null ${ENVIRONMENT_CHECK};`);
    this.addSql(`update workflow set environment = 'live' where tenant_id is not null;`);
    this.addSql(
      `alter table workflow add constraint workflow_environment_owner_check check ((tenant_id is null) = (environment is null));`,
    );
    this.addSql(`drop index if exists workflow_tenant_id_index;`);
    this.addSql(`create index workflow_tenant_environment_index on workflow (tenant_id, environment) where tenant_id is not null;`);

    // Lists: live, with one built-in list per type per environment.
    this.addSql(`alter table list add column environment text not null default 'live' ${ENVIRONMENT_CHECK};`);
    this.addSql(`alter table list alter column environment drop default;`);
    this.addSql(`drop index if exists list_built_in_unique;`);
    this.addSql(`create unique index list_built_in_unique on list (tenant_id, environment, type) where built_in;`);
    this.addSql(`drop index if exists list_tenant_index;`);
    this.addSql(`create index list_tenant_index on list (tenant_id, environment, created_at);`);

    // List entries: their list's environment, except sandbox-key entries of built-in lists (moved below).
    this.addSql(`alter table list_entry add column environment text null ${ENVIRONMENT_CHECK};`);
    this.addSql(`insert into list (id, tenant_id, name, type, policy, built_in, created_at, updated_at, environment)
      select gen_random_uuid(), l.tenant_id, l.name, l.type, l.policy, true, now(), now(), 'sandbox'
      from list l
      where l.built_in and l.environment = 'live'
        and exists (select 1 from list_entry e join api_key k on e.added_by = 'api_key:' || k.id::text
                    where e.list_id = l.id and k.environment = 'sandbox')
      on conflict do nothing;`);
    this.addSql(`update list_entry e set list_id = sb.id, environment = 'sandbox'
      from list l, api_key k, list sb
      where e.list_id = l.id and l.built_in and e.added_by = 'api_key:' || k.id::text and k.environment = 'sandbox'
        and sb.tenant_id = l.tenant_id and sb.type = l.type and sb.built_in and sb.environment = 'sandbox';`);
    this.addSql(`update list_entry e set environment = l.environment from list l where e.list_id = l.id and e.environment is null;`);
    this.addSql(`alter table list_entry alter column environment set not null;`);
    this.addSql(`drop index if exists list_entry_fingerprint_index;`);
    this.addSql(`create index list_entry_fingerprint_index on list_entry (tenant_id, environment, entry_type, fingerprint);`);

    // Webhook destinations: live.
    this.addSql(`alter table webhook_destination add column environment text not null default 'live' ${ENVIRONMENT_CHECK};`);
    this.addSql(`alter table webhook_destination alter column environment drop default;`);
    this.addSql(`drop index if exists webhook_destination_tenant_index;`);
    this.addSql(`create index webhook_destination_tenant_index on webhook_destination (tenant_id, environment, created_at, id);`);

    // Deliveries: their session's environment; test deliveries their destination's (live).
    this.addSql(`alter table webhook_delivery add column environment text null ${ENVIRONMENT_CHECK};`);
    this.addSql(`update webhook_delivery d set environment = s.environment from session s where d.session_id = s.id;`);
    this.addSql(`update webhook_delivery d set environment = w.environment from webhook_destination w
      where d.environment is null and d.destination_id = w.id;`);
    this.addSql(`update webhook_delivery set environment = 'live' where environment is null;`);
    this.addSql(`alter table webhook_delivery alter column environment set not null;`);
    this.addSql(`create index webhook_delivery_tenant_index on webhook_delivery (tenant_id, environment, created_at desc, id desc);`);

    // Attempts: their delivery's environment.
    this.addSql(`alter table webhook_attempt add column environment text null ${ENVIRONMENT_CHECK};`);
    this.addSql(`update webhook_attempt a set environment = d.environment from webhook_delivery d where a.delivery_id = d.id;`);
    this.addSql(`update webhook_attempt set environment = 'live' where environment is null;`);
    this.addSql(`alter table webhook_attempt alter column environment set not null;`);

    // Standalone check results: live (the creating key was not recorded).
    this.addSql(`alter table check_run add column environment text not null default 'live' ${ENVIRONMENT_CHECK};`);
    this.addSql(`alter table check_run alter column environment drop default;`);
    this.addSql(`drop index if exists check_run_tenant_kind_created_index;`);
    this.addSql(`create index check_run_tenant_kind_created_index on check_run (tenant_id, environment, kind, created_at desc);`);

    // Phone codes: their session's environment.
    this.addSql(`alter table phone_otp add column environment text null ${ENVIRONMENT_CHECK};`);
    this.addSql(`update phone_otp o set environment = s.environment from session s where o.session_id = s.id;`);
    this.addSql(`update phone_otp set environment = 'live' where environment is null;`);
    this.addSql(`alter table phone_otp alter column environment set not null;`);

    // Outbox events: their session's environment, so fan-out reaches only that environment's destinations.
    this.addSql(`alter table outbox_event add column environment text null ${ENVIRONMENT_CHECK};`);
    this.addSql(`update outbox_event e set environment = s.environment from session s where e.session_id = s.id;`);
    this.addSql(`update outbox_event set environment = 'live' where environment is null;`);
    this.addSql(`alter table outbox_event alter column environment set not null;`);
  }

  override down(): void {
    for (const table of [
      'outbox_event',
      'phone_otp',
      'check_run',
      'webhook_attempt',
      'webhook_delivery',
      'webhook_destination',
      'list_entry',
    ]) {
      this.addSql(`alter table ${table} drop column environment;`);
    }
    this.addSql(`delete from list where environment = 'sandbox';`);
    this.addSql(`drop index if exists list_built_in_unique;`);
    this.addSql(`alter table list drop column environment;`);
    this.addSql(`create unique index list_built_in_unique on list (tenant_id, type) where built_in;`);
    this.addSql(`alter table workflow drop constraint workflow_environment_owner_check;`);
    this.addSql(`alter table workflow drop column environment;`);
  }
}
