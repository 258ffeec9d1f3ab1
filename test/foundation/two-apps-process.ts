/**
 * A process that runs the two-apps scenario and then has nothing left to do: it prints `closed`
 * and must exit by itself (no `process.exit`), which it does only if both apps' close() released
 * every socket, timer, thread and pool.
 */
import 'reflect-metadata';
import { runTwoApps } from './two-apps-scenario.js';

await runTwoApps();
process.stdout.write('closed\n');
