import { Migration } from '@mikro-orm/migrations';

/**
 * The hosted verification flow: each tenant's settings for its page per environment (branding,
 * privacy link, the origins a session may redirect to or embed the page from, default language),
 * and per session the `redirect_url` the browser goes to at the end and the page's language.
 */
export class Migration20261124000200FlowSettings extends Migration {
  override name = 'Migration20261124000200FlowSettings';

  override up(): void {
    this.addSql(`create table flow_settings (
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null check (environment in ('live', 'sandbox')),
      display_name text null,
      logo text null,
      primary_color text null,
      privacy_url text null,
      allowed_redirect_origins jsonb not null default '[]',
      allowed_embed_origins jsonb not null default '[]',
      default_language text not null default 'en',
      updated_at timestamptz not null default now(),
      primary key (tenant_id, environment)
    );`);
    this.addSql(`alter table session add column redirect_url text null, add column language text null;`);
  }

  override down(): void {
    this.addSql(`alter table session drop column if exists redirect_url, drop column if exists language;`);
    this.addSql(`drop table if exists flow_settings;`);
  }
}
