import { existsSync, renameSync, rmSync } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../shared/config.js';
import { ConfigError } from '../shared/config.js';
import { rewrapSealedColumns } from './sealed-columns.js';
import { createRewrapper, generateMasterKey, masterKeyPathOf, writeMasterKeyFile } from './secrets.js';

/** What a master key rotation did. */
export interface MasterKeyRotation {
  /** Values re-wrapped, per `table.column`. */
  rewrapped: Record<string, number>;
  /** The key file swapped (embedded mode), or null when the key comes from MASTER_KEY. */
  keyFile: string | null;
}

/**
 * Rotates the master key: every sealed value (SEALED_COLUMNS) gets its data key re-wrapped under
 * the new key in ONE transaction, so the database never holds a mix. In embedded mode the new
 * key is generated and written to `master.key.new` (0600) before the transaction, so it cannot be
 * lost once the transaction commits, then renamed over `master.key` (atomic on one file system).
 * With MASTER_KEY from the environment the new key comes from `newMasterKey` (NEW_MASTER_KEY) and
 * the operator swaps the variable. Every process using the old key must be stopped first: a
 * server still holding it would seal new values the new key cannot open.
 */
export async function rotateMasterKey(
  em: EntityManager,
  config: Config,
  currentMasterKey: string,
  newMasterKey?: string,
): Promise<MasterKeyRotation> {
  const keyFile = masterKeyPathOf(config);
  if (!keyFile && !newMasterKey)
    throw new ConfigError('NEW_MASTER_KEY (32+ characters) is required to rotate a master key that comes from MASTER_KEY.');
  if (newMasterKey !== undefined && newMasterKey.length < 32) throw new ConfigError('NEW_MASTER_KEY must be at least 32 characters.');
  const next = newMasterKey ?? generateMasterKey();
  if (next === currentMasterKey) throw new ConfigError('The new master key is the current one.');
  const pendingFile = keyFile ? `${keyFile}.new` : null;
  if (pendingFile) {
    if (existsSync(pendingFile))
      throw new ConfigError(
        `${pendingFile} exists: an earlier rotation stopped half-way. If the server starts and reads its data with master.key, delete it; otherwise move it over master.key.`,
      );
    writeMasterKeyFile(pendingFile, next);
  }
  let rewrapped: Record<string, number>;
  try {
    const rewrap = createRewrapper(currentMasterKey, next);
    rewrapped = await em.transactional((tx) => rewrapSealedColumns(tx as EntityManager, rewrap));
  } catch (error) {
    // Nothing committed: the old key still opens everything, the new one must not linger.
    if (pendingFile) rmSync(pendingFile, { force: true });
    throw error;
  }
  // Committed: from here the data opens with the new key only, which already sits in pendingFile.
  if (keyFile && pendingFile) renameSync(pendingFile, keyFile);
  return { rewrapped, keyFile };
}
