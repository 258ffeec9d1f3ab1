// Piscina worker entry, plain JavaScript so that it loads the same way under `tsx`, under vitest
// and under plain node: it registers tsx's loader in this thread, then imports the TypeScript task
// runner. The handler is a promise; piscina awaits it before the first task.
import { register } from 'tsx/esm/api';

register();

export default import('./worker-task.ts').then((module) => module.default);
