import type { MikroORM } from '@mikro-orm/postgresql';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { getSchema } from './graphql/schema.js';
import { buildHttpServer, type HttpServer } from './http/server.js';
import { seedDemoTenant, type DemoTenant } from './tenants/demo.js';
import { syncBuiltInWorkflows } from './workflows/workflow.service.js';

/** A running service: HTTP server, database, and how to stop them in order. */
export interface RunningApp {
  /** Base URL the server listens on, e.g. `http://127.0.0.1:3000`. */
  url: string;
  config: Config;
  logger: Logger;
  orm: MikroORM;
  database: Database;
  http: HttpServer;
  /** Set on the first start of an empty database: the demo tenant and its keys (shown once). */
  demo: DemoTenant | null;
  /** Drains HTTP and sockets, then closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/** Options for {@link startApp}. */
export interface StartOptions {
  /** Logger to use; a pino JSON logger at `LOG_LEVEL` when absent. */
  logger?: Logger;
}

/** Composition root: opens the database, syncs built-ins, builds the schema and starts listening. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<RunningApp> {
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL });
  const database = await openDatabase(config, logger);
  let http: HttpServer | undefined;
  try {
    const { orm } = database;
    await syncBuiltInWorkflows(orm.em.fork());
    const demo = config.SEED_DEMO_TENANT ? await seedDemoTenant(orm.em.fork()) : null;
    const schema = await getSchema();
    http = await buildHttpServer({ config, logger, orm, schema });
    await http.app.listen({ port: config.PORT, host: config.HOST });
    const address = http.app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
    let closing: Promise<void> | undefined;
    const started = http;
    return {
      url,
      config,
      logger,
      orm,
      database,
      http: started,
      demo,
      close() {
        closing ??= (async () => {
          await started.close();
          await database.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await http?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw error;
  }
}
