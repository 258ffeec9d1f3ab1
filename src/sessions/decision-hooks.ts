/**
 * The plug-in points of the session decision flow: list gates consulted by every decision and
 * observers of every node input a session accepts. The composition root builds them
 * (`Services.decisionHooks`) from the capabilities that need them: the lists gate
 * (src/lists/gate.ts), evidence capture (src/evidence/evidence.service.ts) and the document
 * portrait (src/sessions/portrait.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Session } from '../../entities/session.entity.js';
import type { Workflow } from '../../entities/workflow.entity.js';
import type { ListHit, NodeResult, NodeType } from '../domain/types.js';
import type { Services } from '../services.js';

/** Finds list entries that gate a session while it is decided, read through the decision transaction. */
export type ListGate = (em: EntityManager, session: Session, nodeResults: Partial<Record<NodeType, NodeResult>>) => Promise<ListHit[]>;

/** What the decision transaction stored for the observed input: whether it asks for a retake, and when. */
export interface StoredInput {
  /** The input's step asks for another photo (resubmission_requested): keep nothing from it. */
  retake: boolean;
  /** The time the node result was stored with. */
  now: Date;
}

/** A write an observer makes through the decision transaction's `tx`, after the node result is stored. */
export type InputObservation = (tx: EntityManager, stored: StoredInput) => Promise<void>;

/**
 * Keeps, from a node's raw input, what the node result does not carry (a selfie's face template,
 * a document portrait's embedding, evidence files; never what it must not keep). Runs after the
 * engine, outside any transaction; returns a step that writes through the decision transaction,
 * or nothing.
 */
export type NodeInputObserver = (
  em: EntityManager,
  services: Services,
  session: Session,
  nodeType: NodeType,
  input: unknown,
  workflow: Workflow,
) => Promise<InputObservation | undefined>;

/** The decision flow's plug-ins of one app. */
export interface DecisionHooks {
  /** Consulted by every decision; their hits feed the verdict. */
  listGates: readonly ListGate[];
  /** Run on every node input a session accepts. */
  inputObservers: readonly NodeInputObserver[];
}
