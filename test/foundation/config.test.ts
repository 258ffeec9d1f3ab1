import { describe, expect, it } from 'vitest';
import { ConfigError, SESSION_TTL_MAX_SECONDS, loadConfig } from '../../src/shared/config.js';

describe('configuration bounds', () => {
  it('given SESSION_TTL_SECONDS beyond one year, when loading, then start-up stops naming the variable', () => {
    expect(() => loadConfig({ SESSION_TTL_SECONDS: '400000000' })).toThrow(ConfigError);
    expect(() => loadConfig({ SESSION_TTL_SECONDS: '400000000' })).toThrow(/SESSION_TTL_SECONDS/);
    expect(loadConfig({ SESSION_TTL_SECONDS: String(SESSION_TTL_MAX_SECONDS) }).SESSION_TTL_SECONDS).toBe(SESSION_TTL_MAX_SECONDS);
  });

  it('given nothing, when loading, then statement and lock timeouts have their defaults; a negative one stops start-up', () => {
    expect(loadConfig({})).toMatchObject({ DB_STATEMENT_TIMEOUT_MS: 30_000, DB_LOCK_TIMEOUT_MS: 5_000 });
    expect(loadConfig({ DB_LOCK_TIMEOUT_MS: '0' }).DB_LOCK_TIMEOUT_MS).toBe(0);
    expect(() => loadConfig({ DB_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
  });

  it('given nothing, when loading, then a webhook attempt may take 15 s; none or over five minutes stops start-up', () => {
    expect(loadConfig({}).WEBHOOK_TIMEOUT_SECONDS).toBe(15);
    expect(loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '2.5' }).WEBHOOK_TIMEOUT_SECONDS).toBe(2.5);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '0' })).toThrow(/WEBHOOK_TIMEOUT_SECONDS/);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '301' })).toThrow(/WEBHOOK_TIMEOUT_SECONDS/);
  });
});
