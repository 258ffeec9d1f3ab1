import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowSchema, type Workflow } from '../../entities/workflow.entity.js';
import type { TenantScope } from '../auth/context.js';
import { validationError } from '../shared/errors.js';

/** What a new session needs of its workflow. */
export type SessionWorkflow = Pick<Workflow, 'id' | 'nodes' | 'complianceLevel' | 'rules' | 'publishedRevision'>;

/** The properties of a {@link SessionWorkflow}. */
const SESSION_WORKFLOW_FIELDS = ['id', 'nodes', 'complianceLevel', 'rules', 'publishedRevision'] as const;

/** A workflow read with {@link SESSION_WORKFLOW_FIELDS} as a plain object, detached from any entity manager. */
function sessionWorkflowOf(row: SessionWorkflow): SessionWorkflow {
  return { id: row.id, nodes: row.nodes, complianceLevel: row.complianceLevel, rules: row.rules, publishedRevision: row.publishedRevision };
}

/**
 * Built-in workflows by id, read once per app (`Services.workflows`): they are read-only and
 * synced at start, so an app may keep them; custom workflows are read each time.
 */
export class WorkflowCache {
  private builtIn: Promise<Map<string, SessionWorkflow>> | null = null;

  /**
   * The workflow a new session runs, created or imported from a share: one visible to the scope
   * (as `findWorkflow` sees it), a built-in from memory, a custom one with one query of five
   * columns (the create path is hot); an unknown id is the `workflowId` field error (REST names it
   * `workflow_id`).
   */
  async forSession(em: EntityManager, scope: TenantScope, id: string): Promise<SessionWorkflow> {
    const builtIn = (await this.builtIns(em)).get(id);
    if (builtIn) return builtIn;
    const custom = await em.findOne(
      WorkflowSchema,
      { id, tenant: scope.tenantId, environment: scope.environment, deletedAt: null },
      { fields: SESSION_WORKFLOW_FIELDS, disableIdentityMap: true },
    );
    if (!custom) throw validationError([{ field: 'workflowId', code: 'unknown', message: `workflow ${id} does not exist` }]);
    return sessionWorkflowOf(custom);
  }

  /** Reads the built-ins on first use; a failed read is tried again by the next call. */
  private builtIns(em: EntityManager): Promise<Map<string, SessionWorkflow>> {
    this.builtIn ??= em.find(WorkflowSchema, { builtIn: true }, { fields: SESSION_WORKFLOW_FIELDS, disableIdentityMap: true }).then(
      (rows) => new Map(rows.map((row) => [row.id, sessionWorkflowOf(row)])),
      (error: unknown) => {
        this.builtIn = null;
        throw error;
      },
    );
    return this.builtIn;
  }
}
