import type { PdfCanvas } from './pdf-canvas.js';
import { CJK_CHARS, fontName, type FontWeight } from './pdf-fonts.js';

/** How a paragraph is set: weight, size in points, fill colour. */
export interface TextStyle {
  weight: FontWeight;
  size: number;
  color: string;
}

export interface Paragraph {
  text: string;
  style: TextStyle;
}

/** A run of one face within a line, `x` points from the line's start. */
interface Segment {
  text: string;
  font: string;
  x: number;
}

export interface Line {
  segments: Segment[];
  /** Points from the start of the first segment to the end of the last. */
  width: number;
  style: TextStyle;
}

/** Lines stand this many times their type size apart. */
export const LINE_SPACING = 1.25;

// The baseline below a line's top, in type sizes: DejaVu's ascent (0.93) and a little of the spacing above it.
const BASELINE = 1.02;

/** The height a line takes. */
export const lineHeight = (line: Line): number => line.style.size * LINE_SPACING;

/**
 * A piece that a line break never splits, unless it is wider than a whole line: a word, a space-separated run of
 * other characters, or a single CJK character (CJK text breaks between any two). `spaced`: a space precedes it.
 */
interface Atom {
  text: string;
  font: string;
  width: number;
  spaced: boolean;
}

const PIECES = new RegExp(`(\\s+)|([${CJK_CHARS}])|[^\\s${CJK_CHARS}]+`, 'gu');

// Where a word too long for a line is best cut: after these, as in an e-mail address, a path or an id.
const CUT_AFTER = new Set(['@', '.', '/', '-', '_', ':', ',', ';', '=', '&', '?']);
/** A cut at punctuation must leave at least this part of the line filled; else it wastes the line. */
const PUNCTUATION_CUT_FILL = 0.4;

/** Collects atoms into one line's segments, joining neighbours of the same face into one run of text. */
class LineBuilder {
  segments: Segment[] = [];
  width = 0;

  constructor(private readonly spaceWidth: number) {}

  /** The width the line would have with `atom` added. */
  widthWith(atom: Atom): number {
    return this.width + this.gapBefore(atom) + atom.width;
  }

  add(atom: Atom): void {
    const gap = this.gapBefore(atom);
    const last = this.segments.at(-1);
    if (last?.font === atom.font) last.text += (gap > 0 ? ' ' : '') + atom.text;
    else this.segments.push({ text: atom.text, font: atom.font, x: this.width + gap });
    this.width += gap + atom.width;
  }

  private gapBefore(atom: Atom): number {
    return atom.spaced && this.segments.length > 0 ? this.spaceWidth : 0;
  }
}

/**
 * Lays paragraphs out in lines and draws them. The layout is done here rather than by pdfkit's wrapping because
 * a line can mix faces (a name in Latin and Chinese letters), and because a table row taller than a page must be
 * split between pages at a line, which needs its lines known before any is drawn. A paragraph's lines are kept
 * for the document: a report repeats most of its cells (roles, purposes, statuses) row after row.
 */
export class Typesetter {
  private readonly laidOut = new Map<string, Line[]>();

  constructor(readonly canvas: PdfCanvas) {}

  /** Paragraphs in lines no wider than `width`; an empty paragraph takes no line. */
  lines(paragraphs: Paragraph[], width: number): Line[] {
    return paragraphs.flatMap((paragraph) => {
      const { text, style } = paragraph;
      const key = `${width} ${style.weight} ${style.size} ${style.color} ${text}`;
      let lines = this.laidOut.get(key);
      if (lines === undefined) {
        lines = this.linesOf(paragraph, width);
        this.laidOut.set(key, lines);
      }
      return lines;
    });
  }

  /** Draws a line whose top is at `y`. */
  draw(line: Line, x: number, y: number): void {
    const { size, color } = line.style;
    const baseline = y + size * BASELINE;
    for (const s of line.segments) this.canvas.text(s.font, size, color, x + s.x, baseline, s.text);
  }

  private linesOf(paragraph: Paragraph, width: number): Line[] {
    const { style } = paragraph;
    const spaceWidth = this.canvas.width(style.weight, style.size, ' ');
    const lines: Line[] = [];
    let line = new LineBuilder(spaceWidth);
    const fitted = (atom: Atom) => (atom.width > width ? this.cut(atom, style.size, width) : [atom]);
    for (const atom of this.atomsOf(paragraph).flatMap(fitted)) {
      if (line.segments.length > 0 && line.widthWith(atom) > width) {
        lines.push({ segments: line.segments, width: line.width, style });
        line = new LineBuilder(spaceWidth);
      }
      line.add(atom);
    }
    if (line.segments.length > 0) lines.push({ segments: line.segments, width: line.width, style });
    return lines;
  }

  private atomsOf({ text, style }: Paragraph): Atom[] {
    const atoms: Atom[] = [];
    let spaced = false;
    // Composed, a letter with an accent typed as two code points is one glyph of the font, set without shaping
    // and read back as the one character.
    for (const [piece, space, cjk] of text.normalize('NFC').matchAll(PIECES)) {
      if (space !== undefined) {
        spaced = atoms.length > 0;
        continue;
      }
      const font = fontName(style.weight, cjk !== undefined);
      atoms.push({ text: piece, font, width: this.canvas.width(font, style.size, piece), spaced });
      spaced = false;
    }
    return atoms;
  }

  /**
   * An atom wider than `width` cut into pieces that each fit, so that an id or a URL never runs off: after the
   * last punctuation that fits, where that fills at least part of the line, else after the last character that
   * fits.
   */
  private cut(atom: Atom, size: number, width: number): Atom[] {
    const pieces: Atom[] = [];
    let text = '';
    let used = 0;
    let breakAt = 0;
    let widthAtBreak = 0;
    for (const char of atom.text) {
      const w = this.canvas.width(atom.font, size, char);
      while (used + w > width && text !== '') {
        const atBreak = breakAt > 0 && widthAtBreak >= width * PUNCTUATION_CUT_FILL;
        const at = atBreak ? breakAt : text.length;
        const atWidth = atBreak ? widthAtBreak : used;
        pieces.push({
          ...atom,
          text: text.slice(0, at),
          width: atWidth,
          spaced: pieces.length === 0 && atom.spaced,
        });
        text = text.slice(at);
        used -= atWidth;
        breakAt = 0;
      }
      text += char;
      used += w;
      if (CUT_AFTER.has(char)) {
        breakAt = text.length;
        widthAtBreak = used;
      }
    }
    pieces.push({ ...atom, text, width: used, spaced: pieces.length === 0 && atom.spaced });
    return pieces;
  }
}
