import { loadConfig, type Config } from '../../src/shared/config.js';

/**
 * The configuration a benchmark starts the service with: a free port on loopback, an in-memory
 * PGlite (or DATABASE_URL when set), no demo tenant, silent logs, migrations on start, and rate
 * limits off (a single bench key would meet the per-key limit at once); `env` overrides any of it.
 */
export function benchAppConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    PGLITE_DATA_DIR: 'memory',
    SEED_DEMO_TENANT: 'false',
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    MASTER_KEY: 'bench-master-key-not-for-production-0123456789',
    MIGRATE_ON_START: 'true',
    ...env,
  });
}
