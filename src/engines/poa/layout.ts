/**
 * Page layout of a text PDF: the positioned text items pdf.js returns, regrouped into visual rows
 * (cells split at wide gaps) and blocks (left-aligned runs of rows, such as an address window).
 *
 * The order pdf.js gives items in is the order the producer drew them, which on bills is often
 * column by column or label by label: "Bill Date:" and its value can be thirty items apart, and a
 * payment stub's address can be drawn between two headings. Field rules that read "the line
 * below" or "the value beside" need the page as a reader sees it, so:
 * - a row is the items whose baselines lie within `ROW_TOLERANCE` of a font size of each other,
 *   left to right; a horizontal gap wider than `CELL_GAP` font sizes starts a new cell
 *   (a column of a table, a label's value);
 * - a block is a run of cells one below the other, each starting within `BLOCK_ALIGN` font sizes
 *   of the block's left edge and at most `BLOCK_LEADING` font sizes below the previous one, with
 *   a font size within `BLOCK_SIZE_RATIO` of it (a heading in a larger font starts its own block).
 */

/** One text item as pdf.js returns it (`getTextContent().items`). */
export interface PositionedItem {
  /** The text. */
  str: string;
  /** Transformation matrix `[a, b, c, d, x, y]`, PDF units, origin bottom left. */
  transform: number[];
  /** Advance width in PDF units. */
  width: number;
  /** Height in PDF units (the font size for unscaled text). */
  height: number;
}

/** A visual run of rows: an address window, a table column, a paragraph. */
export interface TextBlock {
  /** The block's cells, top to bottom. */
  lines: string[];
  /** Font size of its first line, in PDF units (0 when unknown, as for OCR). */
  fontSize: number;
  /** Page number, from 1. */
  page: number;
  /** Top of the block as a share of the page height (0 = top edge), for "near the top" rules. */
  top: number;
}

/** One cell of a row: a label, a value, a table column's entry. */
export interface LayoutCell {
  /** The cell's text, single-spaced. */
  text: string;
  /** Left edge in PDF units (0 for OCR text, which has no positions). */
  left: number;
  /** Right edge in PDF units (0 for OCR text). */
  right: number;
}

/** The text of a page or document, by rows and by blocks. */
export interface DocumentLayout {
  /** Visual rows top to bottom, pages one after the other. */
  rows: LayoutCell[][];
  /** Blocks in reading order (top to bottom, left to right), pages one after the other. */
  blocks: TextBlock[];
}

/** Baselines closer than this many font sizes are on the same row. */
export const ROW_TOLERANCE = 0.5;
/** A gap wider than this many font sizes between two items of a row separates two cells. */
export const CELL_GAP = 1.5;
/** A gap wider than this many font sizes inside a cell is written as a space. */
const WORD_GAP = 0.15;
/** A cell joins the block above when its left edge is within this many font sizes of the block's. */
export const BLOCK_ALIGN = 1;
/** … and its baseline at most this many font sizes below the block's last line. */
export const BLOCK_LEADING = 1.8;
/** … and its font size within this ratio of the block's last line. */
export const BLOCK_SIZE_RATIO = 1.3;
/**
 * Most text items laid out per page, in drawing order: a dense bill page has a few thousand; a
 * crafted page of a million one-letter items must not cost quadratic time in the block search.
 */
export const MAX_LAYOUT_ITEMS_PER_PAGE = 20_000;

interface Cell {
  text: string;
  x: number;
  right: number;
  y: number;
  size: number;
}

/** Font size of an item: the vertical scale of its matrix (items may be rotated or scaled). */
function sizeOf(item: PositionedItem): number {
  const size = Math.hypot(item.transform[2], item.transform[3]);
  return size > 0 ? size : item.height;
}

/** Rows and blocks of one page's items; `pageHeight` in PDF units, `page` from 1. */
export function layoutPage(items: readonly PositionedItem[], pageHeight: number, page: number): DocumentLayout {
  const visible = items
    .slice(0, MAX_LAYOUT_ITEMS_PER_PAGE)
    .filter((item) => item.str.trim().length > 0 && item.transform.length >= 6)
    .map((item) => ({ str: item.str, x: item.transform[4], y: item.transform[5], width: item.width, size: sizeOf(item) }))
    .sort((a, b) => b.y - a.y || a.x - b.x);

  const rows: (typeof visible)[] = [];
  for (const item of visible) {
    const row = rows.at(-1);
    if (row && Math.abs(row[0].y - item.y) <= ROW_TOLERANCE * Math.max(row[0].size, item.size)) row.push(item);
    else rows.push([item]);
  }

  const cellRows: Cell[][] = rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    const cells: Cell[] = [];
    let end = -Infinity;
    for (const item of row) {
      const gap = item.x - end;
      const cell = cells.at(-1);
      if (cell && gap <= CELL_GAP * item.size) {
        cell.text += gap > WORD_GAP * item.size && !cell.text.endsWith(' ') && !item.str.startsWith(' ') ? ` ${item.str}` : item.str;
      } else {
        cells.push({ text: item.str, x: item.x, right: item.x + item.width, y: item.y, size: item.size });
      }
      end = Math.max(end, item.x + item.width);
      cells.at(-1)!.right = end;
    }
    for (const cell of cells) cell.text = cell.text.replace(/\s+/g, ' ').trim();
    return cells.filter((cell) => cell.text.length > 0);
  });

  const open: { cells: Cell[] }[] = [];
  // Blocks whose last line is close enough above to take the next row's cells; the others are done.
  let active: { cells: Cell[] }[] = [];
  for (const cells of cellRows) {
    const rowY = cells[0]?.y ?? 0;
    active = active.filter(({ cells: members }) => {
      const last = members.at(-1)!;
      return last.y - rowY <= BLOCK_LEADING * last.size * BLOCK_SIZE_RATIO;
    });
    const started: { cells: Cell[] }[] = [];
    for (const cell of cells) {
      const block = active.find(({ cells: members }) => {
        const last = members.at(-1)!;
        const size = Math.max(last.size, cell.size);
        return (
          Math.abs(members[0].x - cell.x) <= BLOCK_ALIGN * size &&
          last.y - cell.y > 0 &&
          last.y - cell.y <= BLOCK_LEADING * size &&
          Math.max(last.size, cell.size) / Math.max(0.1, Math.min(last.size, cell.size)) <= BLOCK_SIZE_RATIO
        );
      });
      if (block) block.cells.push(cell);
      else started.push({ cells: [cell] });
    }
    open.push(...started);
    active.push(...started);
  }
  const blocks = open
    .map(({ cells }) => ({
      lines: cells.map((cell) => cell.text),
      fontSize: Math.round(cells[0].size * 10) / 10,
      page,
      top: pageHeight > 0 ? Math.min(1, Math.max(0, 1 - cells[0].y / pageHeight)) : 0,
      x: cells[0].x,
    }))
    .sort((a, b) => a.top - b.top || a.x - b.x)
    .map(({ x: _x, ...block }) => block);
  return { rows: cellRows.map((cells) => cells.map(({ text, x, right }) => ({ text, left: x, right }))), blocks };
}

/** One word OCR read, in image pixels (origin top left). */
export interface OcrWord {
  /** The word. */
  text: string;
  /** Its box. */
  box: { x0: number; y0: number; x1: number; y1: number };
  /** Recognition confidence, 0–100. */
  confidence: number;
  /** Baseline of its line, two points (`y` down). */
  baseline: { x0: number; y0: number; x1: number; y1: number };
  /** Height of its line's row (x-height plus ascenders), pixels; 0 when unknown. */
  lineHeight: number;
}

/**
 * Font size of a line of OCR text as a share of its row height (x-height plus ascenders): a
 * font's em is a little larger than its ascender height, so cell gaps and block leading keep
 * the same meaning as on PDF text.
 */
export const OCR_EM_PER_ROW_HEIGHT = 1.15;

/**
 * Rows and blocks of a page of OCR'd words (`height` of the image in pixels, `page` from 1), by the PDF rules (`layoutPage`): each word becomes a
 * text item on its line's baseline, its font size from the line's height (`OCR_EM_PER_ROW_HEIGHT`),
 * so columns that OCR's own reading order runs together come apart into cells and blocks.
 * Edge artefacts are dropped from every cell and block line, as for plain OCR text.
 */
export function layoutOfWords(words: readonly OcrWord[], height: number, page = 1): DocumentLayout {
  const items: PositionedItem[] = words.map(({ text, box, baseline, lineHeight }) => {
    const middle = (box.x0 + box.x1) / 2;
    const run = baseline.x1 - baseline.x0;
    const baselineY = run > 0 ? baseline.y0 + ((baseline.y1 - baseline.y0) * (middle - baseline.x0)) / run : box.y1;
    const size = (lineHeight > 0 ? lineHeight : box.y1 - box.y0) * OCR_EM_PER_ROW_HEIGHT;
    // Each OCR word is a whole word: the space after it keeps it apart from the next however narrow the gap.
    return { str: `${text} `, transform: [size, 0, 0, size, box.x0, height - baselineY], width: box.x1 - box.x0, height: size };
  });
  const laid = layoutPage(items, height, page);
  return {
    rows: laid.rows
      .map((cells) => cells.map((cell) => ({ ...cell, text: cleanLine(cell.text) })).filter((cell) => cell.text.length > 0))
      .filter((cells) => cells.length > 0),
    blocks: laid.blocks
      .map((block) => ({ ...block, lines: block.lines.map(cleanLine).filter((line) => line.length > 0) }))
      .filter((block) => block.lines.length > 0),
  };
}

/**
 * Marks OCR reads from the edge of the paper or a fold rather than from ink: a lone bar, pipe, colon, bracket,
 * dash run or section sign at either end of a line (`Jane Doe §`, `| 42 Baker Street`).
 */
const EDGE_ARTEFACT = /^(?:[|!¦§_=~—–:;()[\]{}-]+\s+)+|(?:\s+[|!¦§_=~—–:;()[\]{}-]+)+$/g;

/** A line of OCR text, single-spaced, without edge artefacts. */
function cleanLine(line: string): string {
  return line.replace(/\s+/g, ' ').trim().replace(EDGE_ARTEFACT, '').trim();
}

/** Layout of plain text (OCR output): one cell per line, paragraphs (separated by blank lines) as blocks, no sizes or positions. */
export function layoutOfText(text: string): DocumentLayout {
  const rows = text
    .split('\n')
    .map(cleanLine)
    .filter((line) => line.length > 0)
    .map((line) => [{ text: line, left: 0, right: 0 }]);
  return { rows, blocks: blocksOfText(text) };
}

/** Paragraphs of plain text as blocks. */
function blocksOfText(text: string): TextBlock[] {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map(cleanLine)
        .filter((line) => line.length > 0),
    )
    .filter((lines) => lines.length > 0)
    .map((lines) => ({ lines, fontSize: 0, page: 1, top: 0 }));
}
