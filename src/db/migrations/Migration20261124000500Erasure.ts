import { Migration } from '@mikro-orm/migrations';

/** When a session's evidence and personal data were erased on request, and by whom (key id or operator name). */
export class Migration20261124000500Erasure extends Migration {
  override name = 'Migration20261124000500Erasure';

  override up(): void {
    this.addSql(`alter table session add column erased_at timestamptz null, add column erased_by text null;`);
  }

  override down(): void {
    this.addSql(`alter table session drop column if exists erased_at, drop column if exists erased_by;`);
  }
}
