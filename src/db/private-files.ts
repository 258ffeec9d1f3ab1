import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** File mode of the data directory and every directory in it: owner only. */
export const DATA_DIRECTORY_MODE = 0o700;
/** File mode of every file in the data directory: owner read/write only. */
export const DATA_FILE_MODE = 0o600;

/**
 * Creates the data directory owner-only, or tightens an existing one. Called by everything that
 * writes into it (the database, the master key), whichever comes first.
 */
export function ensurePrivateDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: DATA_DIRECTORY_MODE });
  chmodSync(directory, DATA_DIRECTORY_MODE);
}

/**
 * Sets every directory under `directory` to 0700 and every file to 0600. PGlite writes its files
 * 0666 whatever the umask (seen on 0.5), and installations made before this check have such
 * files; the 0700 data directory already keeps other users out, this is the second lock.
 */
export function restrictTree(directory: string): void {
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) continue;
    if (stats.isDirectory()) {
      chmodSync(path, DATA_DIRECTORY_MODE);
      restrictTree(path);
    } else if ((stats.mode & 0o777) !== DATA_FILE_MODE) chmodSync(path, DATA_FILE_MODE);
  }
}
