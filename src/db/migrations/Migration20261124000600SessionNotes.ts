import { Migration } from '@mikro-orm/migrations';

/** Notes on a session by the people reviewing it (or an integrator's key), kept with the author's name as the audit trail is. */
export class Migration20261124000600SessionNotes extends Migration {
  override name = 'Migration20261124000600SessionNotes';

  override up(): void {
    this.addSql(`create table session_note (
      id uuid primary key,
      session_id uuid not null references session (id) on delete cascade,
      tenant_id uuid not null references tenant (id) on delete cascade,
      author_operator_id uuid null,
      author_key_id uuid null,
      author_name text not null,
      body text not null check (length(body) between 1 and 4000),
      created_at timestamptz not null default now()
    );`);
    this.addSql(`create index session_note_session_idx on session_note (session_id, created_at);`);
  }

  override down(): void {
    this.addSql(`drop table if exists session_note;`);
  }
}
