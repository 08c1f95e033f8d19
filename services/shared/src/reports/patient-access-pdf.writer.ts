import PDFDocument from 'pdfkit';
import type { PatientAccessReport, PatientAccessRow } from './patient-access-report.js';
import { CELL, COLUMNS, HEADER, proofParagraph } from './patient-access-pdf-columns.js';
import {
  documentInfo,
  explanationParagraphs,
  footerParagraph,
  headingParagraphs,
  noRowsParagraph,
  pageNumberParagraph,
} from './patient-access-pdf-text.js';
import { PdfCanvas } from './pdf-canvas.js';
import { registerFonts } from './pdf-fonts.js';
import { lineHeight, LINE_SPACING, Typesetter, type Line, type Paragraph } from './pdf-text-layout.js';

// US Letter, for a US audience (HIPAA), in points: 8.5 by 11 inches.
const PAGE = { width: 612, height: 792 };
const LEFT = 40;
const TOP = 40;
const CONTENT_WIDTH = PAGE.width - 2 * LEFT;
/** Where the body ends: the footer sits in the margin below. */
const BOTTOM = PAGE.height - 52;
const FOOTER_TOP = PAGE.height - 36;
const PAD = 3;
/** Between a row's cells and its proof line, which is smaller and set in grey, clear of the cells' descenders. */
const PROOF_GAP = 2;
const CELL_LINE = CELL.size * LINE_SPACING;
const RULE = '#c4c9cf';
const HEADER_FILL = '#e6eaef';

const heightOf = (lines: Line[]): number => lines.reduce((sum, line) => sum + lineHeight(line), 0);

/** Draws lines one under another from `y`; returns where they end. */
function drawLines(set: Typesetter, lines: Line[], x: number, y: number): number {
  for (const line of lines) {
    set.draw(line, x, y);
    y += lineHeight(line);
  }
  return y;
}

/** A row laid out: each column's lines, and the proof line under them. */
interface RowLines {
  cells: Line[][];
  proof: Line[];
  /** The most lines any cell has. */
  depth: number;
}

function rowLines(set: Typesetter, row: PatientAccessRow): RowLines {
  const cells = COLUMNS.map((column) => set.lines(column.paragraphs(row), column.width - 2 * PAD));
  const proof = set.lines([proofParagraph(row)], CONTENT_WIDTH - 2 * PAD);
  return { cells, proof, depth: Math.max(...cells.map((lines) => lines.length)) };
}

/**
 * The table, drawn row by row down the pages. Each page starts with the column titles. A row that does not fit
 * what is left of a page starts on the next one; a row taller than a whole page (a thousand fields accessed) is
 * split between pages at a line, so that nothing is ever cut off.
 */
class Table {
  private y: number;
  private readonly titles: Line[][];
  private readonly titleHeight: number;

  constructor(
    private readonly set: Typesetter,
    top: number,
  ) {
    this.titles = COLUMNS.map((c) => set.lines([{ text: c.title, style: HEADER }], c.width - 2 * PAD));
    this.titleHeight = 2 * PAD + Math.max(...this.titles.map(heightOf));
    this.y = top;
    this.drawTitles();
  }

  add(row: PatientAccessRow): void {
    const lines = rowLines(this.set, row);
    const height = this.partHeight(lines.depth, lines.proof);
    if (height > BOTTOM - this.y && height <= BOTTOM - TOP - this.titleHeight) this.nextPage();
    let from = 0;
    while (this.partHeight(lines.depth - from, lines.proof) > BOTTOM - this.y) {
      const room = Math.max(0, Math.floor((BOTTOM - this.y - 2 * PAD) / CELL_LINE));
      const fit = Math.min(room, lines.depth - from);
      if (fit > 0) this.drawPart(lines, from, from + fit, false);
      from += fit;
      this.nextPage();
    }
    this.drawPart(lines, from, lines.depth, true);
  }

  /** The height of `depth` lines of a row's cells, with its proof line under them. */
  private partHeight(depth: number, proof: Line[]): number {
    return 2 * PAD + depth * CELL_LINE + PROOF_GAP + heightOf(proof);
  }

  /** Draws lines `from` to `to` of every cell, and the proof line under them when they are the row's last. */
  private drawPart({ cells, proof }: RowLines, from: number, to: number, last: boolean): void {
    let x = LEFT;
    cells.forEach((lines, i) => {
      drawLines(this.set, lines.slice(from, to), x + PAD, this.y + PAD);
      x += COLUMNS[i]!.width;
    });
    this.y += PAD + (to - from) * CELL_LINE;
    if (last) this.y = drawLines(this.set, proof, LEFT + PAD, this.y + PROOF_GAP);
    this.y += PAD;
    this.set.canvas.rule(LEFT, this.y, CONTENT_WIDTH, RULE);
  }

  private nextPage(): void {
    this.set.canvas.addPage();
    this.y = TOP;
    this.drawTitles();
  }

  private drawTitles(): void {
    this.set.canvas.box(LEFT, this.y, CONTENT_WIDTH, this.titleHeight, HEADER_FILL);
    let x = LEFT;
    this.titles.forEach((lines, i) => {
      drawLines(this.set, lines, x + PAD, this.y + PAD);
      x += COLUMNS[i]!.width;
    });
    this.y += this.titleHeight;
  }
}

/** Paragraphs across the page from `y`, each followed by `gap` points; returns where they end. */
function drawBlock(set: Typesetter, paragraphs: Paragraph[], y: number, gap: number): number {
  for (const paragraph of paragraphs)
    y = drawLines(set, set.lines([paragraph], CONTENT_WIDTH), LEFT, y) + gap;
  return y;
}

/** The report's name and patient on the left of each page's foot, "Page n of m" on the right. */
function drawFooters(doc: PDFKit.PDFDocument, set: Typesetter, report: PatientAccessReport): void {
  const { start, count } = doc.bufferedPageRange();
  const footer = set.lines([footerParagraph(report.heading)], CONTENT_WIDTH * 0.7);
  for (let i = 0; i < count; i += 1) {
    set.canvas.switchToPage(start + i);
    drawLines(set, footer, LEFT, FOOTER_TOP);
    const [number] = set.lines([pageNumberParagraph(i + 1, count)], CONTENT_WIDTH * 0.3);
    set.draw(number!, LEFT + CONTENT_WIDTH - number!.width, FOOTER_TOP);
  }
  set.canvas.flush();
}

// About 20 ms of setting type on this project's machines (5,000 rows took about 0.6 s).
const ROWS_PER_TURN = 200;

function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

/**
 * A patient access report as a PDF to send the patient: the heading, what the rows mean, then the table, with
 * every page numbered. The same report always renders to the same bytes (its dates are the report's).
 */
export async function renderPatientAccessPdf(report: PatientAccessReport): Promise<Buffer> {
  const { heading, rows } = report;
  const doc = new PDFDocument({
    size: [PAGE.width, PAGE.height],
    margin: 0,
    bufferPages: true,
    info: documentInfo(heading),
    lang: 'en-US',
    displayTitle: true,
  });
  const done = collect(doc);
  registerFonts(doc);
  const set = new Typesetter(new PdfCanvas(doc));
  let y = drawBlock(set, headingParagraphs(heading, rows.length), TOP, 3) + 6;
  y = drawBlock(set, explanationParagraphs(heading), y, 5) + 6;
  if (rows.length === 0) {
    drawBlock(set, [noRowsParagraph(heading)], y, 0);
  } else {
    const table = new Table(set, y);
    for (const [i, row] of rows.entries()) {
      // Setting type is synchronous: the gateway's other requests are served between runs of rows.
      if (i > 0 && i % ROWS_PER_TURN === 0) await new Promise(setImmediate);
      table.add(row);
    }
  }
  drawFooters(doc, set, report);
  doc.end();
  return done;
}
