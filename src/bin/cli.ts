/**
 * Admin CLI: `npm run cli -- <command>`. Talks to the configured database directly (or, in
 * embedded mode while the server runs, through the server's embedded Unix socket).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { API_KEY_ENVIRONMENTS, type ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { ConfigError, loadConfig, type Config } from '../shared/config.js';
import { loggerOptions } from '../shared/logging.js';
import { openDatabase, type Database } from '../db/database.js';
import { defaultRuntimeDir, holdsDatabase, runningEmbeddedServers } from '../db/embedded.js';
import { importListFile } from '../engines/aml/importers/cli-import.js';
import { rescreenPendingRequests } from '../sessions/aml-monitoring.js';
import { ApiError } from '../shared/errors.js';
import { EventBus } from '../events/outbox.js';
import { createTenant, issueApiKey, listTenants, revokeApiKey } from '../tenants/tenant.service.js';
import { readCallbackSecret } from '../tenants/callback-secrets.js';
import { createOperator } from '../operators/operator.service.js';
import { createServiceSecrets, resolveMasterKey } from '../auth/secrets.js';
import { bindPersonalDataSealing, sealLegacyPersonalData } from '../auth/personal-data.js';
import { rotateMasterKey } from '../auth/master-key-rotation.js';
import { syncBuiltInWorkflows } from '../workflows/workflow.service.js';
import { backfillSessionSearch } from '../sessions/search.js';

const USAGE = `Usage: npm run cli -- <command> [options]

Every command says on stderr which database it uses. Embedded (no DATABASE_URL), it uses
PGLITE_DATA_DIR when that holds a database, else the data directory of the one running server;
it creates a new empty database only with --create-database.

Commands:
  tenant:create <name>                     Create a tenant (client application); prints its id
  tenant:list                              List tenants and their keys (prefixes only)
  key:issue <tenant-id> [--env live|sandbox] [--name <label>]
                                           Issue an API key (shown once); default env sandbox
  key:revoke <key-id|prefix>               Revoke a key; it answers 401 at once
  operator:create <tenant-id> <email> --name <full name> [--role viewer|reviewer|admin]
                                           Create a person who signs in to /console (default role
                                           admin: the first operator adds the others). The password
                                           is OPERATOR_PASSWORD when set (12+ characters), else one
                                           is generated and shown once
  callback-secret <tenant-id> [--env live|sandbox]
                                           Print the secrets that sign per-session callback events
                                           (each environment has its own; both when --env is omitted)
  secrets:rotate-master-key                Re-wrap every sealed secret under a new master key in one
                                           transaction, then swap the key file (embedded); with
                                           MASTER_KEY set, the new key comes from NEW_MASTER_KEY.
                                           Stop the server and emitters first.
  migrate                                  Apply pending migrations
  search:reindex                           Index for the console's search every session that has no
                                           search entry yet (those created before search existed)
  personal-data:seal                       Seal the personal data an older version stored in clear
                                           (node results, typed details, checks, SMS numbers); the
                                           server also does it at start. Batched, safe to re-run.
  aml:import <file> [<alt.csv> <add.csv>] [--format ofac-sdn-xml|ofac-sdn-csv|eu-xml|un-xml|ftm-jsonl] [--list <LIST>]...
                                           Import an AML list file, replacing each list it holds
                                           (or only the --list ones); format detected when omitted;
                                           OFAC's alt.csv and add.csv after an sdn.csv are merged;
                                           then re-screens approved live sessions (new hit → review)

Options:
  --create-database                        Embedded: create a new empty database in PGLITE_DATA_DIR
                                           when it holds none (otherwise the CLI refuses)
`;

/** Runs one CLI command; returns the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      env: { type: 'string' },
      name: { type: 'string', default: '' },
      role: { type: 'string' },
      format: { type: 'string' },
      list: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
      'create-database': { type: 'boolean', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (!command || values.help) {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  const config = chooseDatabase(loadConfig(), values['create-database'] ?? false);
  const logger = pino(loggerOptions('warn'));
  // Embedded, the key is read before the database opens (a fresh data directory gets a fresh key);
  // a server needs MASTER_KEY only for the commands that open or seal secrets.
  const embeddedKey = config.DATABASE_URL ? null : resolveMasterKey(config, logger);
  const database = await openDatabase(config, logger, { migrate: command === 'migrate' || config.MIGRATE_ON_START });
  console.error(`Database: ${describeDatabase(config, database)}`);
  try {
    const masterKey = () => embeddedKey ?? resolveMasterKey(config, logger);
    /** The service's secrets, bound to the ORM so sessions' sealed personal data opens (src/auth/personal-data.ts). */
    const boundSecrets = () => {
      const secrets = createServiceSecrets(masterKey());
      bindPersonalDataSealing(database.orm, secrets);
      return secrets;
    };
    const em = database.orm.em.fork();
    await syncBuiltInWorkflows(em);
    switch (command) {
      case 'migrate':
        console.log('Migrations are up to date.');
        return 0;
      case 'tenant:create': {
        const tenant = await createTenant(em, rest.join(' '));
        console.log(JSON.stringify({ tenant_id: tenant.id, name: tenant.name }, null, 2));
        return 0;
      }
      case 'tenant:list':
        console.log(JSON.stringify(await listTenants(em), null, 2));
        return 0;
      case 'key:issue': {
        const environment = environmentOption(values.env) ?? 'sandbox';
        const issued = await issueApiKey(em, requireArg(rest[0], 'tenant-id'), environment, values.name);
        console.log(
          JSON.stringify(
            { key_id: issued.id, tenant_id: issued.tenantId, environment, prefix: issued.prefix, api_key: issued.key },
            null,
            2,
          ),
        );
        console.error('The api_key is shown once; store it now.');
        return 0;
      }
      case 'operator:create': {
        const given = process.env.OPERATOR_PASSWORD;
        // A password on the command line would sit in the shell history and the process list: the environment or a generated one.
        const password = given || randomBytes(18).toString('base64url');
        const operator = await createOperator(em, {
          tenantId: requireArg(rest[0], 'tenant-id'),
          email: requireArg(rest[1], 'email'),
          name: values.name,
          role: values.role ?? 'admin',
          password,
        });
        console.log(
          JSON.stringify(
            { operator_id: operator.id, tenant_id: operator.tenantId, email: operator.email, name: operator.name, role: operator.role },
            null,
            2,
          ),
        );
        if (!given) {
          console.log(`password: ${password}`);
          console.error('The password is shown once; give it to the operator now. They sign in at /console.');
        }
        return 0;
      }
      case 'key:revoke':
        console.log(JSON.stringify({ revoked: await revokeApiKey(em, requireArg(rest[0], 'key-id|prefix')) }, null, 2));
        return 0;
      case 'aml:import': {
        const summary = await importListFile(em, requireArg(rest[0], 'file'), {
          format: values.format,
          lists: values.list,
          companions: rest.slice(1),
        });
        // Ongoing monitoring: approved live sessions are screened again against what changed. The
        // import recorded the request in its own transaction; were this process to die here, the
        // server's job runner would still do it.
        // Without the master key here (a server's CLI), the server's job runner re-screens instead:
        // finding the reviewers' false positives needs the key that digests the screened person.
        const monitoring =
          config.DATABASE_URL && !config.MASTER_KEY
            ? { left_to: 'the server job runner (no MASTER_KEY in this shell)' }
            : await rescreenPendingRequests(database.orm.em.fork(), new EventBus(), boundSecrets());
        console.log(JSON.stringify({ ...summary, monitoring }, null, 2));
        return 0;
      }
      case 'callback-secret': {
        const tenantId = requireArg(rest[0], 'tenant-id');
        const environment = environmentOption(values.env);
        const secrets = createServiceSecrets(masterKey());
        if (environment) console.log(await readCallbackSecret(em, secrets, tenantId, environment));
        else {
          const both: Record<string, string> = {};
          for (const env of API_KEY_ENVIRONMENTS) both[env] = await readCallbackSecret(em, secrets, tenantId, env);
          console.log(JSON.stringify(both, null, 2));
        }
        return 0;
      }
      case 'search:reindex': {
        const indexed = await backfillSessionSearch(em, boundSecrets());
        console.log(JSON.stringify({ indexed }));
        return 0;
      }
      case 'personal-data:seal': {
        console.log(JSON.stringify({ sealed: await sealLegacyPersonalData(em, boundSecrets()) }));
        return 0;
      }
      case 'secrets:rotate-master-key': {
        if (database.sharedEmbedded)
          throw new ApiError(
            'conflict',
            'A running server owns this embedded database; stop it (and any emitter) before rotating the master key.',
          );
        const rotation = await rotateMasterKey(em, config, masterKey(), process.env.NEW_MASTER_KEY || undefined);
        console.log(JSON.stringify(rotation, null, 2));
        if (!rotation.keyFile)
          console.error('Set MASTER_KEY to the value of NEW_MASTER_KEY on every server and emitter before starting them.');
        return 0;
      }
      default:
        console.error(`Unknown command: ${command}\n\n${USAGE}`);
        return 1;
    }
  } finally {
    await database.close();
  }
}

/**
 * The configuration with the embedded data directory the CLI should open: PGLITE_DATA_DIR when it
 * holds a database (or a server runs on it), else the one running server's; a new empty database
 * only when asked. Opening an empty directory silently is how a CLI prints `[]` or issues keys the
 * server never sees.
 */
export function chooseDatabase(config: Config, createDatabase: boolean): Config {
  if (config.DATABASE_URL || config.PGLITE_DATA_DIR === 'memory') return config;
  const configured = resolve(config.PGLITE_DATA_DIR);
  const servers = runningEmbeddedServers(config.RUNTIME_DIR ?? defaultRuntimeDir());
  if (holdsDatabase(configured) || servers.some((server) => server.dataDir === configured)) {
    for (const other of servers.filter((server) => server.dataDir !== configured))
      console.error(`Note: a running server (pid ${other.pid}) uses PGLITE_DATA_DIR=${other.dataDir}, not this database.`);
    return { ...config, PGLITE_DATA_DIR: configured };
  }
  if (createDatabase) return { ...config, PGLITE_DATA_DIR: configured };
  if (servers.length === 1) {
    console.error(`PGLITE_DATA_DIR=${configured} holds no database; using the running server's (pid ${servers[0].pid}).`);
    return { ...config, PGLITE_DATA_DIR: servers[0].dataDir };
  }
  if (servers.length > 1)
    throw new ConfigError(
      `PGLITE_DATA_DIR=${configured} holds no database and several servers are running on embedded databases:\n` +
        servers.map((server) => `  pid ${server.pid}: PGLITE_DATA_DIR=${server.dataDir}`).join('\n') +
        '\nSet PGLITE_DATA_DIR to the one you mean.',
    );
  throw new ConfigError(
    `PGLITE_DATA_DIR=${configured} holds no database and no server is running on an embedded database. ` +
      'Start the server first (npm start), set PGLITE_DATA_DIR to its data directory, ' +
      'or pass --create-database to create a new empty database there.',
  );
}

/** One line naming the database a command runs on, without any password. */
function describeDatabase(config: Config, database: Database): string {
  if (!database.embedded) {
    const url = new URL(config.DATABASE_URL!);
    return `PostgreSQL server ${url.hostname}:${url.port || 5432}${url.pathname} (DATABASE_URL)`;
  }
  if (config.PGLITE_DATA_DIR === 'memory') return 'embedded PGlite in memory (nothing is kept)';
  return database.sharedEmbedded
    ? `embedded PGlite in ${config.PGLITE_DATA_DIR}, through the running server's socket`
    : `embedded PGlite in ${config.PGLITE_DATA_DIR}, opened directly (no server runs on it)`;
}

/** The `--env` option checked against the environments; undefined when absent. */
function environmentOption(value: string | undefined): ApiKeyEnvironment | undefined {
  if (value === undefined) return undefined;
  if (!API_KEY_ENVIRONMENTS.includes(value as ApiKeyEnvironment))
    throw new ApiError('validation_failed', `--env must be one of ${API_KEY_ENVIRONMENTS.join(', ')}`);
  return value as ApiKeyEnvironment;
}

/** A positional argument that must be present. */
function requireArg(value: string | undefined, name: string): string {
  if (!value) throw new ApiError('validation_failed', `Missing argument <${name}>.`);
  return value;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof ConfigError || error instanceof ApiError) console.error(error.message);
      else console.error(error);
      process.exit(1);
    },
  );
}
