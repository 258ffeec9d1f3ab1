import { Migration20261123000600AmlNameForms } from './Migration20261123000600AmlNameForms.js';

/**
 * Recomputes every listed entity's rows of `aml_entity_name` again, as
 * Migration20261123000600AmlNameForms does, for the candidate form this release adds: Latin
 * names with Revised Romanization's "eo"/"eu" also spelt with the lists' "o"/"u" (normalize.ts,
 * step 10). The rows are derived data; without this, lists imported before it would lack the
 * form until imported again.
 */
export class Migration20261124000300AmlKoreanForms extends Migration20261123000600AmlNameForms {
  override name = 'Migration20261124000300AmlKoreanForms';
}
