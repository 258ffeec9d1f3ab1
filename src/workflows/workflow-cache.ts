import type { EntityManager } from '@mikro-orm/postgresql';
import type { Workflow } from '../../entities/workflow.entity.js';
import type { TenantScope } from '../auth/context.js';
import { validationError } from '../shared/errors.js';

/** What a new session needs of its workflow. */
export type SessionWorkflow = Pick<Workflow, 'id' | 'nodes' | 'complianceLevel' | 'rules' | 'publishedRevision'>;

/** The columns of a {@link SessionWorkflow}. */
const SESSION_WORKFLOW_COLUMNS = 'id, nodes, compliance_level as "complianceLevel", rules, published_revision as "publishedRevision"';

/**
 * Built-in workflows by id, read once per app (`Services.workflows`): they are read-only and
 * synced at start, so an app may keep them; custom workflows are read each time.
 */
export class WorkflowCache {
  private builtIn: Promise<Map<string, SessionWorkflow>> | null = null;

  /**
   * The workflow a new session runs, created or imported from a share: one visible to the scope
   * (as `findWorkflow` sees it), a built-in from memory, a custom one with one plain query (the
   * create path is hot); an unknown id is the `workflowId` field error (REST names it `workflow_id`).
   */
  async forSession(em: EntityManager, scope: TenantScope, id: string): Promise<SessionWorkflow> {
    const builtIn = (await this.builtIns(em)).get(id);
    if (builtIn) return builtIn;
    const [custom] = await em.execute<SessionWorkflow[]>(
      `select ${SESSION_WORKFLOW_COLUMNS} from workflow where id = ? and tenant_id = ? and environment = ? and deleted_at is null`,
      [id, scope.tenantId, scope.environment],
    );
    if (!custom) throw validationError([{ field: 'workflowId', code: 'unknown', message: `workflow ${id} does not exist` }]);
    return custom;
  }

  /** Reads the built-ins on first use; a failed read is tried again by the next call. */
  private builtIns(em: EntityManager): Promise<Map<string, SessionWorkflow>> {
    this.builtIn ??= em.execute<SessionWorkflow[]>(`select ${SESSION_WORKFLOW_COLUMNS} from workflow where built_in`).then(
      (rows) => new Map(rows.map((row) => [row.id, row])),
      (error: unknown) => {
        this.builtIn = null;
        throw error;
      },
    );
    return this.builtIn;
  }
}
