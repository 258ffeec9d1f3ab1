/** The engine observer of a process: each task timed for `/metrics` and traced as a span. */
import type { EngineObserver } from './executor.js';
import type { AppMetrics } from '../../metrics/metrics.js';
import { traceEngineTask } from '../../observability/tracing.js';

/** Follows every engine task into the process's metrics and traces at once. */
export function observeEngines(metrics: AppMetrics): EngineObserver {
  return {
    queued: (engine) => {
      const timings = [metrics.engineTask(engine), traceEngineTask(engine)];
      return {
        started: () => timings.forEach((timing) => timing.started()),
        finished: (outcome) => timings.forEach((timing) => timing.finished(outcome)),
      };
    },
  };
}
