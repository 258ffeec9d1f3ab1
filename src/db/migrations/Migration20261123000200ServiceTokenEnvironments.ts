import { Migration } from '@mikro-orm/migrations';

/**
 * Service tokens say which environment they come from (audit H1): each signing key belongs to one
 * environment, and each issued token row records the environment of its session.
 *
 * The keys that exist before this migration signed sandbox and live tokens alike, so they can
 * vouch for neither: they are retired from signing (`active = false`) and stay published in the
 * JWKS marked `env: "legacy"`, so tokens they signed keep verifying offline for relying parties
 * that do not yet require `env`. The service generates one new key per environment at start-up.
 */
export class Migration20261123000200ServiceTokenEnvironments extends Migration {
  override name = 'Migration20261123000200ServiceTokenEnvironments';

  override up(): void {
    // Null marks a legacy key that signed both environments.
    this.addSql(`alter table signing_key add column environment text null check (environment in ('live', 'sandbox'));`);
    this.addSql(`update signing_key set active = false where environment is null;`);
    // One signing key per environment: concurrent first starts of several instances cannot both create one.
    this.addSql(`create unique index signing_key_active_environment_index on signing_key (environment) where active;`);

    this.addSql(`alter table service_token add column environment text null check (environment in ('live', 'sandbox'));`);
    // Every token belongs to a session (foreign key, on delete cascade), so each row gets its session's environment.
    this.addSql(`update service_token set environment = session.environment from session where session.id = service_token.session_id;`);
    this.addSql(`alter table service_token alter column environment set not null;`);
  }

  override down(): void {
    this.addSql(`alter table service_token drop column if exists environment;`);
    this.addSql(`drop index if exists signing_key_active_environment_index;`);
    this.addSql(`delete from signing_key where environment is not null;`);
    this.addSql(`update signing_key set active = true where kid = (select kid from signing_key order by created_at desc limit 1);`);
    this.addSql(`alter table signing_key drop column if exists environment;`);
  }
}
