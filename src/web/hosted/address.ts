/** The proof-of-address step's screen: a PDF or a photo of the document. */
import { loadImage, MAX_FILE_BYTES } from './camera.js';
import { field, fieldError, h, show } from './dom.js';
import { submit } from './flow.js';
import { toJpegDataUri } from './quality.js';
import { t } from './state.js';

/** Reads a file as a data URI. */
function readDataUri(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = reject;
    reader.readAsDataURL(file);
  });
}

/** The proof-of-address step: a PDF as it is, a photo scaled down. */
export function proofOfAddress(): void {
  const file = h('input', { type: 'file', accept: 'application/pdf,image/jpeg,image/png', required: true });
  const form = h(
    'form',
    {
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const chosen = file.files?.[0];
        if (!chosen) return fieldError(file, t('required'));
        if (chosen.size > MAX_FILE_BYTES) return fieldError(file, t('fileTooLarge', { size: 10 }));
        try {
          let documentImage: string;
          if (chosen.type === 'application/pdf') documentImage = await readDataUri(chosen);
          else {
            const image = await loadImage(chosen);
            documentImage = toJpegDataUri(image, image.naturalWidth, image.naturalHeight);
          }
          await submit('proof_of_address', { documentImage }, proofOfAddress);
        } catch {
          fieldError(file, t('unreadableFile'));
        }
      },
    },
    field('poa-file', t('chooseDocument'), file, t('poaHint')),
    h('button', { type: 'submit', className: 'primary' }, t('continue')),
  );
  show('poa', t('poaHeading'), form);
}
