/** List file import as the admin CLI runs it (`aml:import`): format names, validation, checksum. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { isAmlList, type AmlList } from '../entity.js';
import { createHash } from 'node:crypto';
import { detectFormat, detectOfacCompanion, importFile, readHead, type ImportOptions, type ListFormat } from './index.js';
import { fileChecksum, importEntities, type ImportSummary } from '../store.js';
import { validationError } from '../../../shared/errors.js';

/** `--format` values of `aml:import` and the importer each selects. */
export const CLI_LIST_FORMATS: Readonly<Record<string, ListFormat>> = {
  'ofac-sdn-xml': 'ofac_sdn_xml',
  'ofac-sdn-csv': 'ofac_sdn_csv',
  'eu-xml': 'eu_consolidated_xml',
  'un-xml': 'un_consolidated_xml',
  'ftm-jsonl': 'opensanctions_jsonl',
};

/** Options of importListFile, as given on the command line. */
export interface ImportListFileOptions {
  /** A CLI_LIST_FORMATS key; detected from the file's first bytes when absent. */
  format?: string;
  /** Lists to replace (others in the file are skipped); every list the file holds when absent. */
  lists?: readonly string[];
  /**
   * Files merged into an OFAC `sdn.csv` import: its `alt.csv` (aliases) and `add.csv` (address
   * countries), told apart by their content; only with an sdn.csv.
   */
  companions?: readonly string[];
}

/** A 400 whose message is the field message, so the CLI prints something useful. */
function cliError(field: string, code: string, message: string): Error {
  return validationError([{ field, code, message }], message);
}

/** Validates the CLI options, streams the file into the store and returns what was replaced. */
export async function importListFile(
  em: EntityManager,
  path: string,
  options: ImportListFileOptions = {},
): Promise<ImportSummary & { format: ListFormat }> {
  const format = options.format === undefined ? undefined : CLI_LIST_FORMATS[options.format];
  if (options.format !== undefined && !format) {
    throw cliError('--format', 'unknown_value', `--format must be one of ${Object.keys(CLI_LIST_FORMATS).join(', ')}`);
  }
  const lists = options.lists
    ?.flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
  const unknown = lists?.filter((list) => !isAmlList(list)) ?? [];
  if (unknown.length > 0) {
    throw cliError('--list', 'unknown_value', `unknown list(s) ${unknown.join(', ')}`);
  }
  const resolved = format ?? detectFormat(await readHead(path));
  if (!resolved) {
    throw cliError('<file>', 'invalid', `cannot tell the format of ${path}; give --format`);
  }
  const companions: ImportOptions = {};
  for (const companion of options.companions ?? []) {
    const kind = detectOfacCompanion(await readHead(companion));
    if (resolved !== 'ofac_sdn_csv' || !kind) {
      throw cliError('<file>', 'invalid', `${companion}: only OFAC's alt.csv and add.csv can be given beside an sdn.csv`);
    }
    if (kind === 'ofac_alt_csv') companions.ofacAltCsvPath = companion;
    else companions.ofacAddCsvPath = companion;
  }
  // One checksum for what was imported: the primary file's alone, or the hash of every file's hash.
  const checksums = [await fileChecksum(path), ...(await Promise.all((options.companions ?? []).map(fileChecksum)))];
  const checksum = checksums.length === 1 ? checksums[0]! : createHash('sha256').update(checksums.join('\n')).digest('hex');
  const summary = await importEntities(em, importFile(path, resolved, companions), {
    ...(lists && lists.length > 0 ? { lists: lists as AmlList[] } : {}),
    fileFormat: resolved,
    checksum,
  });
  return { ...summary, format: resolved };
}
