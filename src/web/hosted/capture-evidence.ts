/**
 * Capture integrity on the page (docs/capture-integrity.md): as a photo is taken, the server's
 * nonce for it, the camera's label and frame rate, and the rate frames really arrived at; an
 * uploaded file says so. The server judges the evidence; the page only reports it.
 */
import { graphql } from './api.js';
import { sessionId, state } from './state.js';

/** How one image was made, as the step inputs' `captures` take it. */
export interface CaptureEvidence {
  source: 'camera' | 'upload';
  nonce?: string;
  deviceLabel?: string;
  frameRate?: number;
  measuredFrameRate?: number;
}

/** The steps whose photos carry evidence. */
export type CaptureStep = 'document_verification' | 'biometric_kyc';

const ISSUE_NONCE = `mutation ($sessionId: String!, $nodeType: NodeType!) { issueCaptureNonce(sessionId: $sessionId, nodeType: $nodeType) { nonce expiresAt } }`;

/** An uploaded file's evidence. */
export const UPLOADED: CaptureEvidence = { source: 'upload' };

/**
 * Counts the frames a playing camera video decodes, from when the camera starts to the shot:
 * frames arriving faster than the camera's own rate are a sign of an injected stream.
 */
export function frameMeter(video: HTMLVideoElement): () => number | undefined {
  const startFrames = video.getVideoPlaybackQuality().totalVideoFrames;
  const startedAt = performance.now();
  return () => {
    const seconds = (performance.now() - startedAt) / 1000;
    const frames = video.getVideoPlaybackQuality().totalVideoFrames - startFrames;
    return seconds >= 0.5 && frames > 0 ? Math.round((frames / seconds) * 10) / 10 : undefined;
  };
}

/**
 * The evidence of a camera shot: asks the server for the capture's nonce (none when that fails:
 * the server then names the nonce missing) and reads the camera's label and frame rate.
 */
export async function cameraEvidence(step: CaptureStep, measuredFrameRate: number | undefined): Promise<CaptureEvidence> {
  const track = state.stream?.getVideoTracks()[0];
  const frameRate = track?.getSettings().frameRate;
  let nonce: string | undefined;
  try {
    nonce = (await graphql<{ issueCaptureNonce: { nonce: string } }>(state.token, ISSUE_NONCE, { sessionId, nodeType: step }))
      .issueCaptureNonce.nonce;
  } catch {
    nonce = undefined;
  }
  return {
    source: 'camera',
    ...(nonce ? { nonce } : {}),
    ...(track?.label ? { deviceLabel: track.label.slice(0, 200) } : {}),
    ...(frameRate ? { frameRate } : {}),
    ...(measuredFrameRate ? { measuredFrameRate } : {}),
  };
}
