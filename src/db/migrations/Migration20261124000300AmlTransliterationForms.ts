import { Migration20261123000600AmlNameForms } from './Migration20261123000600AmlNameForms.js';

/**
 * Recomputes every listed entity's rows of `aml_entity_name` again, as
 * Migration20261123000600AmlNameForms does, for the candidate forms this release changes
 * (normalize.ts): Latin names with Revised Romanization's "eo"/"eu" also spelt with the lists'
 * "o"/"u" (step 10); "Abdul"/"Abdel" as "Abd", "ben" and "wld" (ولد) dropped as particles, no
 * titles read into Arabic-script names (steps 7–8); and consonant skeletons that strip a final h
 * after the vowels, read the French "ch", "dj" and soft "c", and keep the "zh" of a ta marbuta
 * apart. The rows are derived data; without this, lists imported before it would keep the old
 * forms until imported again.
 */
export class Migration20261124000300AmlTransliterationForms extends Migration20261123000600AmlNameForms {
  override name = 'Migration20261124000300AmlTransliterationForms';
}
