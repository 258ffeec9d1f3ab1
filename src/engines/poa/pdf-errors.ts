/**
 * What reading a PDF may fail with, and its default decode budget, apart from the reader
 * (pdf.ts): the PDF worker pool (pdf-worker.ts) rebuilds these errors on the caller's side and is
 * started with every app, which need not load pdf-lib and unpdf for that.
 */

/**
 * Default of PDF_MAX_DECODED_BYTES: most bytes all of a PDF's streams may decode to together
 * (64 MB), every filter stage and object stream counted, checked before any parser decodes them
 * (pdf-decode-budget.ts): a 2 KB file can otherwise hold a gigabyte.
 */
export const PDF_MAX_DECODED_BYTES = 64 * 1024 * 1024;

/** Thrown when a PDF cannot be parsed at all; the caller turns it into a 400. */
export class UnreadablePdfError extends Error {
  override name = 'UnreadablePdfError';
}

/** Thrown when a PDF is over one of the limits of pdf.ts; the caller turns it into a 400 naming the limit. */
export class PdfLimitError extends Error {
  override name = 'PdfLimitError';
}
