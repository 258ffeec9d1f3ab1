import { Migration } from '@mikro-orm/migrations';

/**
 * Capture integrity (docs/capture-integrity.md): the per-capture nonces the hosted flow asks for
 * before it takes a photo (single use, short-lived, bound to one session and step), and the two
 * workflow options that ask more of a capture: `capture` (`any` | `camera`) and `liveness`
 * (`passive` | `active`). Defaults keep every existing workflow as it was.
 */
export class Migration20261126003100H22LiveCapture extends Migration {
  override name = 'Migration20261126003100H22LiveCapture';

  override up(): void {
    this.addSql(`create table capture_nonce (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      environment text not null,
      session_id uuid not null references session (id) on delete cascade,
      node_type text not null,
      purpose text not null check (purpose in ('capture', 'liveness')),
      moves jsonb null,
      issued_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz null
    );`);
    this.addSql(`create index capture_nonce_session_idx on capture_nonce (session_id);`);
    this.addSql(`alter table workflow add column capture text not null default 'any' check (capture in ('any', 'camera')),
      add column liveness text not null default 'passive' check (liveness in ('passive', 'active'));`);
  }

  override down(): void {
    this.addSql(`drop table if exists capture_nonce;`);
    this.addSql(`alter table workflow drop column if exists capture, drop column if exists liveness;`);
  }
}
