import { createHash } from 'node:crypto';
import { Migration } from '@mikro-orm/migrations';

// This migration's own copies of the v2 constants and projection: the engine's have since moved
// on (template v3, Migration20261125000100H15FaceTemplatesV3), and a migration must keep doing
// what it did when it was written.
/** Length of the v1 template (human's faceres embedding, rotated). */
const EMBEDDING_DIMENSION = 1024;
/** Values in a v2 template. */
const TEMPLATE_DIMENSION = 256;
/** Largest magnitude of a v2 template value. */
const TEMPLATE_VALUE_MAX = 127;

/** Rows converted per statement. */
const BATCH_ROWS = 500;

/** A v1 template (1024 float32, little-endian, 4096 bytes) as its values. */
function v1Values(bytes: Buffer): Float32Array {
  return Float32Array.from({ length: EMBEDDING_DIMENSION }, (_, i) => bytes.readFloatLE(i * 4));
}

/** The v2 template of a v1 template's values: its first 256 values scaled so the largest is ±127, rounded. */
export function v2TemplateOfV1(rotated: ArrayLike<number>): Int8Array {
  if (rotated.length !== EMBEDDING_DIMENSION) throw new Error(`v1 template must have ${EMBEDDING_DIMENSION} values, got ${rotated.length}`);
  let largest = 0;
  for (let i = 0; i < TEMPLATE_DIMENSION; i++) largest = Math.max(largest, Math.abs(rotated[i]));
  if (!(largest > 0)) throw new Error('cannot make a template of a zero (or non-finite) projection');
  const scale = TEMPLATE_VALUE_MAX / largest;
  return Int8Array.from({ length: TEMPLATE_DIMENSION }, (_, i) => Math.round(rotated[i] * scale));
}

/** The v2 bytes of a v1 template and their fingerprint (`sha256:` of the bytes, as src/engines/face/template.ts). */
function converted(values: ArrayLike<number>): { bytes: Buffer; fingerprint: string } {
  const bytes = Buffer.from(v2TemplateOfV1(values).buffer);
  return { bytes, fingerprint: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
}

/**
 * Face templates v2 (docs/face.md "Cancelable templates"): 256 signed bytes, the first 256
 * coordinates of the same secret rotation, instead of 1024 float32. The v1 matrix is kept, so
 * every stored template converts without the tenant's secret and still matches new ones:
 * `list_entry` and `session_list_subject` templates are rewritten (face entry fingerprints with
 * them), pgvector's `embedding vector(1024)` becomes `vector(256)` filled from the bytes under a
 * new HNSW index, and `template` is now written for every face entry on both kinds of server.
 */
export class Migration20261122000900FaceTemplates extends Migration {
  override name = 'Migration20261122000900FaceTemplates';

  override async up(): Promise<void> {
    const [vector] = await this.execute(
      `select exists (select 1 from information_schema.columns
                       where table_schema = current_schema() and table_name = 'list_entry' and column_name = 'embedding') as has_embedding`,
    );
    const pgvector = Boolean(vector?.has_embedding);

    // v1 bytes (4096) in either table; on pgvector servers face entries had only the vector.
    for (const table of ['list_entry', 'session_list_subject'] as const) {
      const key = table === 'list_entry' ? 'id::text' : `session_id::text || '/' || node_type || '/' || kind`;
      let after = '';
      for (;;) {
        const rows = await this.execute(
          `select ${key} as key, template from ${table}
            where length(template) = ? and ${key} > ? order by ${key} limit ?`,
          [EMBEDDING_DIMENSION * 4, after, BATCH_ROWS],
        );
        if (rows.length === 0) break;
        after = String(rows.at(-1)!.key);
        await this.rewrite(
          table,
          key,
          rows.map((row) => ({ key: String(row.key), ...converted(v1Values(row.template as Buffer)) })),
        );
      }
    }
    if (pgvector) {
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const rows = await this.execute(
          `select id::text as key, embedding::text as embedding from list_entry
            where embedding is not null and template is null and id > ? order by id limit ?`,
          [after, BATCH_ROWS],
        );
        if (rows.length === 0) break;
        after = String(rows.at(-1)!.key);
        await this.rewrite(
          'list_entry',
          'id::text',
          rows.map((row) => ({ key: String(row.key), ...converted(JSON.parse(String(row.embedding)) as number[]) })),
        );
      }
      // The vector copy is rebuilt from the bytes: signed bytes 0–255 → −128…127.
      await this.execute('drop index if exists list_entry_embedding_hnsw');
      await this.execute('alter table list_entry drop column embedding');
      await this.execute(`alter table list_entry add column embedding vector(${TEMPLATE_DIMENSION}) null`);
      await this.execute(
        `update list_entry set embedding = (
           select array_agg(((get_byte(template, i) + 128) % 256) - 128 order by i) from generate_series(0, ${TEMPLATE_DIMENSION - 1}) as i
         )::real[]::vector
         where entry_type = 'face' and length(template) = ${TEMPLATE_DIMENSION}`,
      );
      await this.execute('create index list_entry_embedding_hnsw on list_entry using hnsw (embedding vector_cosine_ops)');
    }
  }

  /** Writes converted templates (and, for face entries, their fingerprints) back by key. */
  private async rewrite(
    table: 'list_entry' | 'session_list_subject',
    key: string,
    rows: { key: string; bytes: Buffer; fingerprint: string }[],
  ): Promise<void> {
    const tuples = rows.map(() => '(?, ?::bytea, ?)').join(', ');
    const params = rows.flatMap((row) => [row.key, row.bytes, row.fingerprint]);
    const fingerprint = table === 'list_entry' ? ', fingerprint = v.fingerprint' : '';
    await this.execute(
      `update ${table} set template = v.template${fingerprint}
         from (values ${tuples}) as v (key, template, fingerprint)
        where ${key} = v.key`,
      params,
    );
  }
}
