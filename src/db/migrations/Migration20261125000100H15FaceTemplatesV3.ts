import { Migration } from '@mikro-orm/migrations';

/**
 * Face templates v3 (docs/face.md "Cancelable templates"): the face engine's embedding is now
 * face-api's 128-d descriptor instead of human's 1024-d faceres, so a v2 template can never match
 * a new selfie, and it cannot be converted (another model; no image was kept). Every tenant's
 * face template key moves to the next version with the same secret (new templates use v3
 * matrices through their own derivation label): v2 face list entries stay listed, with their
 * fingerprints, but no longer match, since matching reads only the current key version; they
 * need re-enrolling from the original image. Sessions' selfie templates (v2, short-lived, remade
 * by the next list check) are deleted, as a key rotation deletes them.
 */
export class Migration20261125000100H15FaceTemplatesV3 extends Migration {
  override name = 'Migration20261125000100H15FaceTemplatesV3';

  override up(): void {
    this.addSql(`update face_template_key set version = version + 1;`);
    this.addSql(`delete from session_list_subject where kind = 'face';`);
  }
}
