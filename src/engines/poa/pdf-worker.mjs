// PDF worker entry, plain JavaScript like ../pool/worker.mjs: registers tsx's loader in this thread,
// then imports the TypeScript task that reads one PDF.
import { register } from 'tsx/esm/api';

register();

export default import('./pdf-worker-task.ts').then((module) => module.default);
