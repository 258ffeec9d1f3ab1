import { Migration20261122000000Foundation } from './Migration20261122000000Foundation.js';
import { Migration20261122000100CheckRuns } from './Migration20261122000100CheckRuns.js';
import { Migration20261122000200Sessions } from './Migration20261122000200Sessions.js';
import { Migration20261122000300AmlEntities } from './Migration20261122000300AmlEntities.js';
import { Migration20261122000400Lists } from './Migration20261122000400Lists.js';
import { Migration20261122000500Webhooks } from './Migration20261122000500Webhooks.js';
import { Migration20261122000600Sharing } from './Migration20261122000600Sharing.js';
import { Migration20261122000700PhoneOtp } from './Migration20261122000700PhoneOtp.js';
import { Migration20261122000800SessionPortraits } from './Migration20261122000800SessionPortraits.js';
import { Migration20261122000900FaceTemplates } from './Migration20261122000900FaceTemplates.js';
import { Migration20261122001100ApiKeyEpoch } from './Migration20261122001100ApiKeyEpoch.js';
import { Migration20261122001200AmlNameEpoch } from './Migration20261122001200AmlNameEpoch.js';
import { Migration20261122001300AmlRescreenRequests } from './Migration20261122001300AmlRescreenRequests.js';
import { Migration20261123000100Environments } from './Migration20261123000100Environments.js';
import { Migration20261123000200ServiceTokenEnvironments } from './Migration20261123000200ServiceTokenEnvironments.js';
import { Migration20261123000300SecretsAtRest } from './Migration20261123000300SecretsAtRest.js';
import { Migration20261123000500BoundedInput } from './Migration20261123000500BoundedInput.js';
import { Migration20261123000600AmlNameForms } from './Migration20261123000600AmlNameForms.js';
import { Migration20261124000100Resubmission } from './Migration20261124000100Resubmission.js';
import { Migration20261124000200FlowSettings } from './Migration20261124000200FlowSettings.js';
import { Migration20261124000300AmlTransliterationForms } from './Migration20261124000300AmlTransliterationForms.js';
import { Migration20261124000300RateLimits } from './Migration20261124000300RateLimits.js';
import { Migration20261124000300Operators } from './Migration20261124000300Operators.js';
import { Migration20261124000400Evidence } from './Migration20261124000400Evidence.js';
import { Migration20261124000500Erasure } from './Migration20261124000500Erasure.js';
import { Migration20261124000700H16PagesAudit } from './Migration20261124000700H16PagesAudit.js';
import { Migration20261124000600SessionNotes } from './Migration20261124000600SessionNotes.js';
import { Migration20261124000500EventSnapshots } from './Migration20261124000500EventSnapshots.js';
import { Migration20261125000100H15FaceTemplatesV3 } from './Migration20261125000100H15FaceTemplatesV3.js';
import { Migration2026112600110H22Replay } from './Migration2026112600110H22Replay.js';
import { Migration20261125000100H16OpsClaimsTotp } from './Migration20261125000100H16OpsClaimsTotp.js';
import { Migration20261126008100H28SignInBrake } from './Migration20261126008100H28SignInBrake.js';
import { Migration20261126003100H22LiveCapture } from './Migration20261126003100H22LiveCapture.js';
import { Migration20261126007100H24Reasons } from './Migration20261126007100H24Reasons.js';
import { Migration20261126020000H28TraceContext } from './Migration20261126020000H28TraceContext.js';
import { Migration20261126210000H25AmlDisposition } from './Migration20261126210000H25AmlDisposition.js';
import { Migration20261126204500H25ConsoleWork } from './Migration20261126204500H25ConsoleWork.js';
import { Migration20261126210000H25Search } from './Migration20261126210000H25Search.js';
import { Migration20261126213000H29ListingIndexes } from './Migration20261126213000H29ListingIndexes.js';
import { Migration20261127000200H25EvidenceFace } from './Migration20261127000200H25EvidenceFace.js';
import { Migration20261127000100H25ReviewEntry } from './Migration20261127000100H25ReviewEntry.js';
import { Migration20261126210000H27Flows } from './Migration20261126210000H27Flows.js';
import { Migration20261127170000H27ReplayLease } from './Migration20261127170000H27ReplayLease.js';
import { Migration20261127000100H28SandboxAudience } from './Migration20261127000100H28SandboxAudience.js';
import { Migration20261127000200H28AnnounceOnCommit } from './Migration20261127000200H28AnnounceOnCommit.js';
import { Migration20261127170000H28PersonalData } from './Migration20261127170000H28PersonalData.js';
import { Migration20261127100000H22FaceIndex } from './Migration20261127100000H22FaceIndex.js';
import { Migration20261127200000H30UnsealedProbe } from './Migration20261127200000H30UnsealedProbe.js';
import { Migration20261128030000H32WebhookClaimIndex } from './Migration20261128030000H32WebhookClaimIndex.js';
import { Migration20261128070000H35WebhookLease } from './Migration20261128070000H35WebhookLease.js';
import { Migration20261128170000H39ListEntryCount } from './Migration20261128170000H39ListEntryCount.js';
import { Migration20261128220000H40ListEntryChangeXid } from './Migration20261128220000H40ListEntryChangeXid.js';
import { Migration20261129010000H41SessionCounts } from './Migration20261129010000H41SessionCounts.js';

/** Every migration in order; listed explicitly so tsx, vitest and a bundle all find the same set. */
export const MIGRATIONS = [
  Migration20261122000000Foundation,
  Migration20261122000100CheckRuns,
  Migration20261122000200Sessions,
  Migration20261122000300AmlEntities,
  Migration20261122000400Lists,
  Migration20261122000500Webhooks,
  Migration20261122000600Sharing,
  Migration20261122000700PhoneOtp,
  Migration20261122000800SessionPortraits,
  Migration20261122000900FaceTemplates,
  Migration20261122001100ApiKeyEpoch,
  Migration20261122001200AmlNameEpoch,
  Migration20261122001300AmlRescreenRequests,
  Migration20261123000100Environments,
  Migration20261123000200ServiceTokenEnvironments,
  Migration20261123000300SecretsAtRest,
  Migration20261123000500BoundedInput,
  Migration20261123000600AmlNameForms,
  Migration20261124000100Resubmission,
  Migration20261124000200FlowSettings,
  Migration20261124000300AmlTransliterationForms,
  Migration20261124000300RateLimits,
  Migration20261124000300Operators,
  Migration20261124000400Evidence,
  Migration20261124000500Erasure,
  Migration20261124000600SessionNotes,
  Migration20261124000500EventSnapshots,
  Migration20261124000700H16PagesAudit,
  Migration20261125000100H15FaceTemplatesV3,
  Migration20261125000100H16OpsClaimsTotp,
  Migration20261126008100H28SignInBrake,
  Migration2026112600110H22Replay,
  Migration20261126003100H22LiveCapture,
  Migration20261126007100H24Reasons,
  Migration20261126020000H28TraceContext,
  Migration20261126210000H25AmlDisposition,
  Migration20261126204500H25ConsoleWork,
  Migration20261126210000H25Search,
  Migration20261126213000H29ListingIndexes,
  Migration20261126210000H27Flows,
  Migration20261127170000H27ReplayLease,
  Migration20261127000100H28SandboxAudience,
  Migration20261127000200H28AnnounceOnCommit,
  Migration20261127170000H28PersonalData,
  Migration20261127000100H25ReviewEntry,
  Migration20261127000200H25EvidenceFace,
  Migration20261127100000H22FaceIndex,
  Migration20261127200000H30UnsealedProbe,
  Migration20261128030000H32WebhookClaimIndex,
  Migration20261128070000H35WebhookLease,
  Migration20261128170000H39ListEntryCount,
  Migration20261128220000H40ListEntryChangeXid,
  Migration20261129010000H41SessionCounts,
];
