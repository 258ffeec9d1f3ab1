import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Two app starts (each migrates its own embedded database) and their use, on a loaded machine. */
const SCENARIO_TIMEOUT_MS = 180_000;

describe('two apps in one process', () => {
  it(
    'given a process that starts two apps, uses both, closes the second first and uses the first again, then both close and the process exits by itself',
    async () => {
      // The scenario (two-apps-scenario.ts) asserts with node:assert; a failure exits the child with 1.
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/foundation/two-apps-process.ts'], {
        cwd: ROOT,
        env: process.env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      // A handle that close() left open keeps the child alive, and the test times out here.
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(output).toContain('closed');
      expect(code).toBe(0);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
