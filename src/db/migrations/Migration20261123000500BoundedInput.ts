import { Migration } from '@mikro-orm/migrations';

/**
 * Deleting a custom workflow (DELETE /v1/workflows/{id}) hides it instead of removing the row:
 * finished sessions keep referencing the workflow they ran, so their history and decisions stay
 * readable, while the workflow leaves listings and can start no new session.
 */
export class Migration20261123000500BoundedInput extends Migration {
  override name = 'Migration20261123000500BoundedInput';

  override up(): void {
    this.addSql(`alter table workflow add column deleted_at timestamptz null;`);
  }

  override down(): void {
    this.addSql(`alter table workflow drop column if exists deleted_at;`);
  }
}
