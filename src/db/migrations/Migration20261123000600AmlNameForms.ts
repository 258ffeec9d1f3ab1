import { Migration } from '@mikro-orm/migrations';
import { INSERT_NAME_ROWS_SQL, normalizedNamesOf } from '../../engines/aml/store.js';

/** Entities whose names are recomputed per statement. */
const BATCH_ENTITIES = 1000;

/**
 * Recomputes every listed entity's rows of `aml_entity_name` from its stored primary name and
 * aliases (`aml_entity`), with the normaliser of this release (docs/aml.md "Normalisation"):
 * invisible characters removed, lookalike letters folded, particles dropped on both sides, the
 * lists' Korean romanisation, and each name's consonant skeleton as a second candidate form. The
 * rows are derived data, so nothing is lost; without this, lists imported before it would keep
 * the old forms (and no skeletons) until imported again. The epoch trigger on the table makes
 * every server rebuild its in-memory name index afterwards.
 */
export class Migration20261123000600AmlNameForms extends Migration {
  override name = 'Migration20261123000600AmlNameForms';

  override async up(): Promise<void> {
    let after = '';
    for (;;) {
      const rows = await this.execute('select id, source_list, primary_name, aliases from aml_entity where id > ? order by id limit ?', [
        after,
        BATCH_ENTITIES,
      ]);
      if (rows.length === 0) break;
      after = String(rows.at(-1)!.id);
      const ids = rows.map((row) => String(row.id));
      const names = rows.flatMap((row) =>
        normalizedNamesOf({ primary_name: String(row.primary_name), aliases: (row.aliases as string[] | null) ?? [] }).map((n) => ({
          e: String(row.id),
          l: String(row.source_list),
          n,
        })),
      );
      await this.execute('delete from aml_entity_name where entity_id in (select jsonb_array_elements_text(?::jsonb))', [
        JSON.stringify(ids),
      ]);
      if (names.length > 0) await this.execute(INSERT_NAME_ROWS_SQL, [JSON.stringify(names)]);
    }
  }
}
