import type { EntityManager } from '@mikro-orm/postgresql';
import type { Workflow } from '../../entities/workflow.entity.js';
import type { TenantScope } from '../auth/context.js';

/** The nodes a new session needs from its workflow. */
export type SessionWorkflow = Pick<Workflow, 'id' | 'nodes'>;

/**
 * Built-in workflows by id, read once per app (`Services.workflows`): they are read-only and
 * synced at start, so an app may keep them; custom workflows are read each time.
 */
export class WorkflowCache {
  private builtIn: Promise<Map<string, SessionWorkflow>> | null = null;

  /** The workflow a new session runs: a built-in from memory, a custom one of the scope from the database. */
  async forSession(em: EntityManager, scope: TenantScope, id: string): Promise<SessionWorkflow | null> {
    const builtIn = (await this.builtIns(em)).get(id);
    if (builtIn) return builtIn;
    const [custom] = await em.execute<SessionWorkflow[]>(
      'select id, nodes from workflow where id = ? and tenant_id = ? and environment = ? and deleted_at is null',
      [id, scope.tenantId, scope.environment],
    );
    return custom ?? null;
  }

  /** Reads the built-ins on first use; a failed read is tried again by the next call. */
  private builtIns(em: EntityManager): Promise<Map<string, SessionWorkflow>> {
    this.builtIn ??= em.execute<SessionWorkflow[]>('select id, nodes from workflow where built_in').then(
      (rows) => new Map(rows.map((row) => [row.id, row])),
      (error: unknown) => {
        this.builtIn = null;
        throw error;
      },
    );
    return this.builtIn;
  }
}
