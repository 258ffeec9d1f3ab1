/**
 * The evidence viewer (issue 25.2): a modal dialog showing kept images at full size through their
 * signed URLs (each opening audited by the server, as the thumbnails are), with zoom, pan, rotate
 * and brightness, one image or the document portrait and the selfie side by side with their faces
 * at the same size (from the face boxes the server keeps; the document front and the selfie at one
 * scale where no portrait was found), and every attempt of a step. Keyboard: + and - zoom, arrows pan, r rotates, 0 fits, b and B change
 * the brightness, Escape closes (the dialog's own). The URLs are asked for afresh when it opens:
 * those of the case page may be older than their 5 minutes.
 */
import { graphql } from './api.js';
import { announce, h, when } from './dom.js';

/** One kept file as the viewer lists it. */
export interface ViewerEvidence {
  id: string;
  kind: string;
  contentType: string;
  url: string;
  attempt: number;
  createdAt: number;
  /** Where the face is, as fractions of the upright image (selfies and document portraits). */
  face: { x: number; y: number; width: number; height: number } | null;
}

/** Names of the evidence kinds as shown. */
export const EVIDENCE_LABELS: Record<string, string> = {
  document_front: 'Document, front',
  document_back: 'Document, back',
  document_portrait: 'Document portrait',
  selfie: 'Selfie',
  proof_of_address: 'Proof of address',
};

const FRESH_EVIDENCE = `query ($id: String!) { session(id: $id) { evidence { id kind contentType url attempt createdAt face { x y width height } } } }`;

/** Zoom bounds and steps: the factor is image pixels to screen pixels. */
const ZOOM_MIN = 0.05;
const ZOOM_MAX = 8;
const ZOOM_STEP = 1.25;
/** How tall a face is drawn when two faces are lined up, as a share of the pane. */
const FACE_SHARE_OF_PANE = 0.5;
/** Pixels an arrow key pans. */
const PAN_STEP_PX = 40;
/** Brightness bounds (CSS filter percentage) and step. */
const BRIGHTNESS_MIN = 50;
const BRIGHTNESS_MAX = 250;
const BRIGHTNESS_STEP = 10;

/** What one pane shows and how. */
interface Pane {
  kind: string;
  item: ViewerEvidence;
  x: number;
  y: number;
  rotation: number;
  brightness: number;
  /**
   * Image pixels to screen pixels before the shared zoom: 1, or with faces lined up, what makes this
   * pane's face as tall as the other's.
   */
  base: number;
  /** The focusable area the image moves in. */
  element: HTMLElement;
  /** The pane with its heading and attempt picker. */
  section: HTMLElement;
  image: HTMLImageElement;
  status: HTMLElement;
}

/** Kinds of one session's evidence, each with its attempts oldest first. */

/**
 * The signed URL made unique for this opening. Two URLs signed in the same second are the same
 * string, and Chromium serves an image it already holds for the page from memory, without a
 * request: that view would reach no server and leave no audit row. The extra parameter is not
 * signed and the server ignores it.
 */
function viewUrl(url: string): string {
  return `${url}&view=${crypto.randomUUID()}`;
}
function byKind(evidence: ViewerEvidence[]): Map<string, ViewerEvidence[]> {
  const kinds = new Map<string, ViewerEvidence[]>();
  for (const item of evidence.filter((file) => file.contentType.startsWith('image/'))) {
    kinds.set(item.kind, [...(kinds.get(item.kind) ?? []), item]);
  }
  return kinds;
}

/**
 * Opens the viewer on a session's images: `kinds` are the panes (one, or the document front and the
 * selfie side by side), `attemptIds` the attempt each starts on (the latest otherwise). Focus
 * returns to `opener` when it closes.
 */
export async function openEvidenceViewer(
  sessionId: string,
  kinds: string[],
  opener: HTMLElement | null,
  attemptIds: Record<string, string> = {},
): Promise<void> {
  const fresh = (await graphql<{ session: { evidence: ViewerEvidence[] } }>(FRESH_EVIDENCE, { id: sessionId })).session.evidence;
  const attempts = byKind(fresh);
  const shown = kinds.filter((kind) => attempts.has(kind));
  if (shown.length === 0) {
    announce('Nothing kept to show.');
    return;
  }
  let zoom = 1;
  const panes: Pane[] = [];
  let active = 0;

  const layout = (pane: Pane) => {
    const scale = zoom * pane.base;
    pane.image.style.transform = `translate(-50%, -50%) translate(${pane.x}px, ${pane.y}px) rotate(${pane.rotation}deg) scale(${scale})`;
    // The face's height on screen, for a reader checking the panes match (and for the browser test).
    if (pane.item.face) pane.element.dataset.facePx = String(Math.round(pane.item.face.height * pane.image.naturalHeight * scale));
    pane.image.style.filter = `brightness(${pane.brightness}%)`;
    const list = attempts.get(pane.kind)!;
    pane.status.textContent = `Attempt ${pane.item.attempt} of ${list.length} · ${Math.round(zoom * 100)} % · ${pane.rotation}° · brightness ${pane.brightness} %`;
  };
  const relayout = () => panes.forEach(layout);
  /**
   * Side by side with a face box in every pane: each image is scaled so its face is the same
   * height on screen (half the pane's height), centred on the face. Returns false when a pane has
   * no face box or has not loaded.
   */
  const fitFaces = () => {
    if (panes.length < 2 || !panes.every((pane) => pane.item.face && pane.image.naturalWidth > 0)) return false;
    const target = Math.min(...panes.map((pane) => Math.min(pane.element.clientHeight, pane.element.clientWidth))) * FACE_SHARE_OF_PANE;
    zoom = 1;
    for (const pane of panes) {
      const face = pane.item.face!;
      const [width, height] = [pane.image.naturalWidth, pane.image.naturalHeight];
      pane.base = target / (face.height * height);
      // Move the face's centre to the pane's centre (the image turns about its own centre).
      const dx = (0.5 - (face.x + face.width / 2)) * width * pane.base;
      const dy = (0.5 - (face.y + face.height / 2)) * height * pane.base;
      const turn = (pane.rotation * Math.PI) / 180;
      pane.x = dx * Math.cos(turn) - dy * Math.sin(turn);
      pane.y = dx * Math.sin(turn) + dy * Math.cos(turn);
    }
    relayout();
    return true;
  };
  /** The largest scale at which every pane's image fits its pane: side by side, both show at this one scale. */
  const fit = () => {
    if (fitFaces()) return;
    for (const pane of panes) pane.base = 1;
    const scales = panes
      .filter((pane) => pane.image.naturalWidth > 0)
      .map((pane) => {
        const turned = pane.rotation % 180 !== 0;
        const [width, height] = turned
          ? [pane.image.naturalHeight, pane.image.naturalWidth]
          : [pane.image.naturalWidth, pane.image.naturalHeight];
        return Math.min(pane.element.clientWidth / width, pane.element.clientHeight / height);
      });
    zoom = scales.length ? Math.min(...scales, ZOOM_MAX) : 1;
    for (const pane of panes) Object.assign(pane, { x: 0, y: 0 });
    relayout();
  };
  const zoomBy = (factor: number) => {
    zoom = Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, zoom * factor));
    relayout();
  };
  const current = () => panes[active]!;
  const rotate = () => {
    current().rotation = (current().rotation + 90) % 360;
    layout(current());
  };
  const brighten = (step: number) => {
    current().brightness = Math.min(BRIGHTNESS_MAX, Math.max(BRIGHTNESS_MIN, current().brightness + step));
    brightness.value = String(current().brightness);
    layout(current());
  };

  const brightness = h('input', {
    type: 'range',
    id: 'viewer-brightness',
    min: String(BRIGHTNESS_MIN),
    max: String(BRIGHTNESS_MAX),
    step: String(BRIGHTNESS_STEP),
    value: '100',
    oninput: () => {
      current().brightness = Number(brightness.value);
      layout(current());
    },
  });
  const dialog = h('dialog', { class: 'viewer', id: 'evidence-viewer', 'aria-labelledby': 'viewer-heading' });
  const close = () => dialog.close();

  const paneOf = (kind: string, index: number): Pane => {
    const list = attempts.get(kind)!;
    const item = list.find((candidate) => candidate.id === attemptIds[kind]) ?? list[list.length - 1]!;
    const label = EVIDENCE_LABELS[kind] ?? kind;
    const image = h('img', { alt: `${label}, attempt ${item.attempt}, full size`, draggable: 'false' });
    const status = h('p', { class: 'viewer-status', 'aria-live': 'polite', id: `viewer-status-${kind}` });
    const stage = h('div', {
      class: 'viewer-stage',
      tabindex: '0',
      role: 'group',
      'aria-label': `${label}: + and - zoom, arrows pan, r rotates, 0 fits, b and B brightness`,
      'data-kind': kind,
      onfocus: () => {
        active = index;
        brightness.value = String(pane.brightness);
      },
    });
    stage.append(image);
    const select = h(
      'select',
      {
        id: `viewer-attempt-${kind}`,
        onchange: () => {
          pane.item = list.find((candidate) => candidate.id === select.value)!;
          pane.image.alt = `${label}, attempt ${pane.item.attempt}, full size`;
          // URLs live a minute (audit N13): the viewer may have been open longer, so ask for a fresh one.
          const chosen = pane.item;
          void graphql<{ session: { evidence: ViewerEvidence[] } }>(FRESH_EVIDENCE, { id: sessionId }).then(({ session }) => {
            if (pane.item === chosen)
              pane.image.src = viewUrl(session.evidence.find((candidate) => candidate.id === chosen.id)?.url ?? chosen.url);
          });
        },
      },
      ...list.map((candidate) =>
        h(
          'option',
          { value: candidate.id, selected: candidate.id === item.id },
          `Attempt ${candidate.attempt} of ${list.length} · ${when(candidate.createdAt)}`,
        ),
      ),
    );
    const section = h(
      'section',
      { class: 'viewer-pane', 'aria-label': label },
      h(
        'div',
        { class: 'viewer-pane-head' },
        h('h3', {}, label),
        h('label', { for: `viewer-attempt-${kind}`, class: 'visually-hidden' }, `${label}: attempt`),
        select,
      ),
      stage,
      status,
    );
    const pane: Pane = { kind, item, x: 0, y: 0, rotation: 0, brightness: 100, base: 1, element: stage, section, image, status };
    image.addEventListener('load', () => (panes.every((each) => each.image.complete) ? fit() : layout(pane)));
    image.addEventListener('error', () => {
      status.textContent = 'The image could not be opened (its link may have expired): close and open the viewer again.';
    });
    // Drag to pan; the wheel zooms (both scales together, so side by side stays comparable).
    stage.addEventListener('pointerdown', (event) => {
      stage.setPointerCapture(event.pointerId);
      const start = { x: event.clientX - pane.x, y: event.clientY - pane.y };
      const move = (moved: PointerEvent) => {
        pane.x = moved.clientX - start.x;
        pane.y = moved.clientY - start.y;
        layout(pane);
      };
      const up = () => {
        stage.removeEventListener('pointermove', move);
        stage.removeEventListener('pointerup', up);
      };
      stage.addEventListener('pointermove', move);
      stage.addEventListener('pointerup', up);
    });
    stage.addEventListener(
      'wheel',
      (event) => {
        event.preventDefault();
        zoomBy(event.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP);
      },
      { passive: false },
    );
    panes.push(pane);
    return pane;
  };

  const built = shown.map((kind, index) => paneOf(kind, index));
  const button = (id: string, text: string, label: string, action: () => void) =>
    h('button', { type: 'button', class: 'secondary', id, 'aria-label': label, title: label, onclick: action }, text);
  dialog.append(
    h(
      'div',
      { class: 'viewer-bar' },
      h(
        'h2',
        { id: 'viewer-heading' },
        shown.length > 1
          ? shown.includes('document_portrait')
            ? 'Document portrait and selfie, faces at the same size'
            : 'Document and selfie, same scale'
          : (EVIDENCE_LABELS[shown[0]!] ?? shown[0]!),
      ),
      h(
        'div',
        { class: 'viewer-tools', role: 'toolbar', 'aria-label': 'Image tools' },
        button('viewer-zoom-out', '−', 'Zoom out (-)', () => zoomBy(1 / ZOOM_STEP)),
        button('viewer-zoom-in', '+', 'Zoom in (+)', () => zoomBy(ZOOM_STEP)),
        button('viewer-fit', 'Fit', 'Fit to the window (0)', fit),
        button('viewer-rotate', 'Rotate', 'Rotate 90° clockwise (r)', rotate),
        h('label', { for: 'viewer-brightness' }, 'Brightness'),
        brightness,
        h('button', { type: 'button', id: 'viewer-close', onclick: close }, 'Close'),
      ),
    ),
    h('div', { class: `viewer-panes${built.length > 1 ? ' two' : ''}` }, ...built.map((pane) => pane.section)),
  );
  dialog.addEventListener('keydown', (event) => {
    if ((event.target as HTMLElement).closest('select, input')) return;
    const keys: Record<string, () => void> = {
      '+': () => zoomBy(ZOOM_STEP),
      '=': () => zoomBy(ZOOM_STEP),
      '-': () => zoomBy(1 / ZOOM_STEP),
      '0': fit,
      r: rotate,
      b: () => brighten(BRIGHTNESS_STEP),
      B: () => brighten(-BRIGHTNESS_STEP),
      ArrowLeft: () => ((current().x -= PAN_STEP_PX), layout(current())),
      ArrowRight: () => ((current().x += PAN_STEP_PX), layout(current())),
      ArrowUp: () => ((current().y -= PAN_STEP_PX), layout(current())),
      ArrowDown: () => ((current().y += PAN_STEP_PX), layout(current())),
    };
    const action = keys[event.key];
    if (!action || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    action();
  });
  dialog.addEventListener('close', () => {
    dialog.remove();
    opener?.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  for (const pane of panes) pane.image.src = viewUrl(pane.item.url);
  built[0]!.element.focus();
}
