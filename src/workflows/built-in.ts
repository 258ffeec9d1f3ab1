import type { WorkflowDefinition, WorkflowNode } from '../../entities/workflow.entity.js';
import { DEFAULT_AML_SCORE_THRESHOLD } from '../domain/workflow.js';
import type { WorkflowRule } from '../domain/workflow-rules.js';

/** A built-in workflow definition; upserted at start so the code stays the single source. */
export interface BuiltInWorkflow extends Pick<WorkflowDefinition, 'name' | 'type' | 'nodes' | 'complianceLevel' | 'amlScoreThreshold'> {
  id: string;
  /** Conditions and outcomes, in the form tenants write theirs: none, the nodes' required flags and the threshold decide. */
  rules: WorkflowRule[];
}

const DOCUMENT: WorkflowNode = { type: 'document_verification', required: true, provider: 'openkyc:mrz_ocr' };
const FACE: WorkflowNode = { type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' };
const AML: WorkflowNode = { type: 'aml_screening', required: true, provider: 'openkyc:aml_screen' };
const PHONE: WorkflowNode = { type: 'phone_verification', required: true, provider: 'openkyc:sms_otp' };
const POA: WorkflowNode = { type: 'proof_of_address', required: true, provider: 'openkyc:poa_ocr' };
const REGISTRY: WorkflowNode = { type: 'business_registry', required: true, provider: 'openkyc:registry_lookup' };

/** The five built-in workflows of the spec, read-only for every tenant. */
export const BUILT_IN_WORKFLOWS: readonly BuiltInWorkflow[] = [
  {
    id: 'standard_kyc',
    name: 'Standard KYC',
    type: 'user',
    nodes: [DOCUMENT, FACE, AML, { ...PHONE, required: false }],
    rules: [],
    complianceLevel: 'standard',
    amlScoreThreshold: DEFAULT_AML_SCORE_THRESHOLD,
  },
  {
    id: 'enhanced_kyc',
    name: 'Enhanced KYC',
    type: 'user',
    nodes: [DOCUMENT, FACE, AML, PHONE, POA],
    rules: [],
    complianceLevel: 'enhanced',
    amlScoreThreshold: DEFAULT_AML_SCORE_THRESHOLD,
  },
  {
    id: 'institutional_kyc',
    name: 'Institutional KYC',
    type: 'user',
    nodes: [DOCUMENT, FACE, AML, PHONE, POA],
    rules: [],
    complianceLevel: 'institutional',
    // Institutions accept less AML risk than the default.
    amlScoreThreshold: 70,
  },
  {
    id: 'aml_only',
    name: 'AML screening only',
    type: 'user',
    nodes: [AML],
    rules: [],
    complianceLevel: 'basic',
    amlScoreThreshold: DEFAULT_AML_SCORE_THRESHOLD,
  },
  {
    id: 'kyb',
    name: 'Know your business',
    type: 'business',
    nodes: [REGISTRY, AML, POA],
    rules: [],
    complianceLevel: 'business',
    amlScoreThreshold: DEFAULT_AML_SCORE_THRESHOLD,
  },
];

/** Ids of the built-ins, for the read-only check. */
export const BUILT_IN_WORKFLOW_IDS: ReadonlySet<string> = new Set(BUILT_IN_WORKFLOWS.map((workflow) => workflow.id));
