/**
 * The production layout as real child processes on one PostgreSQL database (docs/operations.md):
 * API servers (`src/bin/server.ts`, engines through the queue, no emitter of their own), engine
 * workers (`src/bin/worker.ts`) and the webhook emitter (`src/bin/emitter.ts`). Used by the
 * scale-out test (test/operations/scale-out.test.ts) and its benchmark (bench/scale-out.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));

/** Master key every process of one layout shares, so each reads what the others sealed. */
export const TOPOLOGY_MASTER_KEY = 'test-master-key-not-for-production-0123456789';

/** One line a process printed: its pino JSON when it is one (`msg` and the rest), else just the text. */
export interface ProcessLine {
  text: string;
  msg?: string;
  jobId?: string;
  worker?: string;
  retryCount?: number;
  [field: string]: unknown;
}

/** A running process of the layout and what it printed. */
export interface ServiceProcess {
  role: 'api' | 'worker' | 'emitter';
  child: ChildProcess;
  lines: ProcessLine[];
  /** Resolves with the first line (already printed or to come) that matches; rejects if the process exits first. */
  next(match: (line: ProcessLine) => boolean): Promise<ProcessLine>;
  /** `kill -9`: resolves once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (drains), then SIGKILL if it is still there after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** An API server of the layout, with its URL. */
export interface ApiProcess extends ServiceProcess {
  url: string;
}

/** Settings of every process of one layout. */
export interface TopologyOptions {
  databaseUrl: string;
  /** Extra environment for every process (webhook retry schedule, loopback receivers, …). */
  env?: Record<string, string>;
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Spawns `src/bin/<bin>.ts` under tsx and follows its output line by line. */
function spawnService(role: ServiceProcess['role'], bin: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', `src/bin/${bin}.ts`], {
    cwd: REPOSITORY,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: ProcessLine[] = [];
  const waiting: { match: (line: ProcessLine) => boolean; resolve: (line: ProcessLine) => void; reject: (error: Error) => void }[] = [];
  const record = (text: string) => {
    let line: ProcessLine = { text };
    if (text.startsWith('{')) {
      try {
        line = { ...(JSON.parse(text) as Record<string, unknown>), text };
      } catch {
        // Not JSON after all: keep the text.
      }
    }
    lines.push(line);
    for (const waiter of waiting.filter((candidate) => candidate.match(line))) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  };
  createInterface({ input: child.stdout! }).on('line', record);
  createInterface({ input: child.stderr! }).on('line', record);
  child.once('exit', (code, signal) => {
    const tail = lines
      .slice(-15)
      .map((line) => line.text)
      .join('\n');
    for (const waiter of waiting.splice(0))
      waiter.reject(new Error(`${role} (${bin}) exited (${signal ?? code}) before the line it waited for:\n${tail}`));
  });
  return {
    role,
    child,
    lines,
    next(match) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      if (!isRunning(child)) return Promise.reject(new Error(`${role} (${bin}) is not running`));
      return new Promise((resolve, reject) => waiting.push({ match, resolve, reject }));
    },
    async kill9() {
      if (!isRunning(child)) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 20_000) {
      if (!isRunning(child)) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Environment every process of the layout shares. */
function sharedEnv(options: TopologyOptions): Record<string, string> {
  return {
    DATABASE_URL: options.databaseUrl,
    MASTER_KEY: TOPOLOGY_MASTER_KEY,
    // Every request of the test or bench comes from 127.0.0.1.
    RATE_LIMIT_ENABLED: 'false',
    // A small PDF read in a fresh thread on 2 cores loaded 40 deep (CI beside other work) took over
    // the 10 s default; these runs measure the layout, not that limit (test/poa/pdf-bombs.test.ts does).
    PDF_WORKER_TIMEOUT_MS: '120000',
    ENGINE_TIMEOUT_MS: '180000',
    ...options.env,
  };
}

/**
 * Starts an API server on a free port; resolves once it listens. `seedDemoTenant` lets the first
 * one create the demo tenant and print its keys (read them with {@link demoKeys}); `migrate` lets
 * it migrate an empty database first.
 */
export async function startApiProcess(
  options: TopologyOptions,
  settings: { seedDemoTenant?: boolean; migrate?: boolean } = {},
): Promise<ApiProcess> {
  const started = spawnService('api', 'server', {
    ...sharedEnv(options),
    HOST: '127.0.0.1',
    PORT: '0',
    ENGINE_EXECUTION: 'queue',
    EMITTER_IN_PROCESS: 'false',
    SEED_DEMO_TENANT: String(settings.seedDemoTenant ?? false),
    MIGRATE_ON_START: String(settings.migrate ?? false),
    LOG_LEVEL: 'warn',
  });
  const listening = await started.next((line) => line.text.includes('listening on http'));
  return { ...started, url: /listening on (http:\/\/\S+)/.exec(listening.text)![1]! };
}

/** Starts an engine worker with `threads` engine threads; resolves once it takes jobs. */
export async function startWorkerProcess(options: TopologyOptions, threads = 1): Promise<ServiceProcess> {
  const started = spawnService('worker', 'worker', {
    ...sharedEnv(options),
    ENGINE_POOL_SIZE: String(threads),
    // A killed worker's job is failed by the other's supervisor within a second of its heartbeat ending.
    ENGINE_QUEUE_SUPERVISE_SECONDS: '1',
    LOG_LEVEL: 'info',
  });
  await started.next((line) => line.msg === 'engine worker started');
  return started;
}

/** Starts the webhook emitter; resolves once it polls. */
export async function startEmitterProcess(options: TopologyOptions): Promise<ServiceProcess> {
  const started = spawnService('emitter', 'emitter', { ...sharedEnv(options), LOG_LEVEL: 'info' });
  await started.next((line) => line.msg === 'webhook emitter started');
  return started;
}

/** The demo tenant's id and keys, as the API server that created it printed them. */
export async function demoKeys(api: ApiProcess): Promise<{ tenantId: string; sandboxKey: string; liveKey: string }> {
  const value = async (label: string) => /:\s+(\S+)$/.exec((await api.next((line) => line.text.includes(label))).text)![1]!;
  return {
    tenantId: await value('Demo tenant created'),
    sandboxKey: await value('Sandbox API key (shown once)'),
    liveKey: await value('Live API key (shown once)'),
  };
}
