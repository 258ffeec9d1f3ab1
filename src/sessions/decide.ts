/** Applying the verdict: after a step is stored, the decision engine (domain/verdict.ts) with the list gates decides the session. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema, type Session, type SessionNodeResult } from '../../entities/session.entity.js';
import { type Workflow } from '../../entities/workflow.entity.js';
import { type NodeResult, type NodeType } from '../domain/types.js';
import { decideWithRules, ruledNodeStates, ruleFacts } from '../domain/workflow-rules.js';
import { assignOnReviewEntry } from '../operators/assignment.js';
import { approve } from './approval.js';
import { type EventBatch } from '../events/outbox.js';
import type { Services } from '../services.js';
import { transition } from './status-audit.js';
import { storedDetailsOf } from './stored-node-details.js';

/** Node results keyed by node type, as the verdict engine reads them. */
function resultsByType(rows: SessionNodeResult[]): Partial<Record<NodeType, NodeResult>> {
  return Object.fromEntries(
    rows.map((row) => [
      row.nodeType,
      { status: row.status, required: row.required, provider: row.provider, warnings: row.warnings, details: row.details },
    ]),
  );
}

/** Runs the verdict for a session inside a transaction and applies it when it is decisive. */
export async function decide(
  tx: EntityManager,
  events: EventBatch,
  services: Services,
  session: Session,
  workflow: Workflow,
): Promise<void> {
  const rows = await tx.find(SessionNodeResultSchema, { sessionId: session.id });
  const nodeResults = resultsByType(rows);
  const listHits = (await Promise.all(services.decisionHooks.listGates.map((gate) => gate(tx, session, nodeResults)))).flat();
  const amlScore = storedDetailsOf(nodeResults.aml_screening, 'aml_screening').score ?? null;
  session.amlScore = amlScore === null ? null : Math.round(amlScore);
  session.warnings = rows.flatMap((row) => row.warnings);
  const facts = ruleFacts({
    environment: session.environment,
    metadata: session.metadata ?? null,
    nodeTypes: workflow.nodes.map((node) => node.type),
    nodeResults,
    documentDetails: storedDetailsOf(nodeResults.document_verification, 'document_verification'),
    amlDetails: storedDetailsOf(nodeResults.aml_screening, 'aml_screening'),
    listHits,
    sessionWarnings: [],
    amlScore,
    today: new Date(),
  });
  const verdict = decideWithRules({
    workflow: { nodes: workflow.nodes, complianceLevel: workflow.complianceLevel, amlScoreThreshold: workflow.amlScoreThreshold },
    nodeResults,
    listHits,
    amlScore,
    sessionWarnings: [],
    rules: workflow.rules ?? [],
    facts,
  });
  session.reasons = verdict.reasons;
  // The stored steps say what the rules made of them (a run_node rule's node is required, a skipped one is skipped).
  const matched = (workflow.rules ?? []).filter((rule) => verdict.matchedRules.includes(rule.id));
  for (const change of ruledNodeStates(workflow.nodes, matched, nodeResults)) {
    const row = rows.find((candidate) => candidate.nodeType === change.type)!;
    row.required = change.required;
    row.status = change.status;
  }
  if (verdict.status === null || session.status !== 'in_progress') return;
  transition(tx, events, session, verdict.status, 'decision_engine', null);
  session.decidedAt = new Date();
  if (verdict.status === 'approved') await approve(tx, services, session, workflow);
  if (verdict.status === 'in_review')
    await assignOnReviewEntry(tx, { id: session.id, tenantId: session.tenant.id, environment: session.environment });
}
