import { Migration } from '@mikro-orm/migrations';

/**
 * Where the face is in a kept image (issue 25, "evidence viewer"): the document portrait, cut from
 * the document front and kept as evidence of its own, and the selfie carry their face box, as
 * fractions of the upright image, so the console can show both faces side by side at one size.
 */
export class Migration20261127000200H25EvidenceFace extends Migration {
  override name = 'Migration20261127000200H25EvidenceFace';

  override up(): void {
    this.addSql(`alter table evidence add column face jsonb null;`);
  }

  override down(): void {
    this.addSql(`alter table evidence drop column if exists face;`);
  }
}
