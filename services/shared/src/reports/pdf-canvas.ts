/**
 * What pdfkit keeps of a face once text is set in it (its EmbeddedFont): the resource name, the encoder that adds
 * glyphs to the subset it embeds and to the text's Unicode map, and the font's indirect object. It is internal to
 * pdfkit, whose version package.json pins exactly; the tests read every PDF back with pdftotext.
 */
interface EmbeddedFont {
  id: string;
  encode(text: string): [string[], { xAdvance: number }[]];
  ref(): unknown;
}

/**
 * A character's glyphs in one face: their two-byte ids in the subset, as the bytes of a PDF literal string (half
 * the size of hex, which the content's compression feels), and their advance in 1/1000 of the type size.
 */
interface Glyphs {
  bytes: string;
  advance: number;
}

// The bytes a literal string must escape: its delimiters, the escape, and the line ends a reader would normalize.
const ESCAPES: Record<string, string> = { '(': '\\(', ')': '\\)', '\\': '\\\\', '\r': '\\r', '\n': '\\n' };

/** Glyph ids as pdfkit encodes them (four hex digits each) in a literal string's bytes. */
function literal(hex: string[]): string {
  let bytes = '';
  for (const id of hex) {
    for (const at of [0, 2]) {
      const byte = String.fromCharCode(Number.parseInt(id.slice(at, at + 2), 16));
      bytes += ESCAPES[byte] ?? byte;
    }
  }
  return bytes;
}

/** A face and its glyphs so far, one character at a time. */
class Face {
  private readonly glyphs = new Map<string, Glyphs>();

  constructor(readonly font: EmbeddedFont) {}

  glyph(char: string): Glyphs {
    let glyphs = this.glyphs.get(char);
    if (glyphs === undefined) {
      const [hex, positions] = this.font.encode(char);
      glyphs = { bytes: literal(hex), advance: positions.reduce((sum, p) => sum + p.xAdvance, 0) };
      this.glyphs.set(char, glyphs);
    }
    return glyphs;
  }
}

// Text in these scripts needs no shaping: each character is one glyph, set at its own advance (no kerning or
// ligatures, which also keeps the text that readers extract exact). Anything else (Arabic, Hebrew, Indic scripts)
// is measured and set by pdfkit, which shapes it with fontkit but lays right-to-left words out left to right.
const UNSHAPED =
  /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}]*$/u;

const num = (n: number): string => String(Math.round(n * 100) / 100);

/** A colour as `#rrggbb`, in PDF's 0 to 1 per channel. */
const rgb = (hex: string): string =>
  [1, 3, 5].map((i) => num(Number.parseInt(hex.slice(i, i + 2), 16) / 255)).join(' ');

/**
 * Draws text, lines and boxes on a pdfkit document, in pdfkit's coordinates (points from the page's top left),
 * writing the PDF operators itself. pdfkit's own text() lays out and measures each fragment several times and
 * writes about ten content lines for it, with a save and a transform: through it 5,000 rows took 6 to 9 s, and
 * over 2 s of CPU with fontkit's shaping skipped (2026-11-30, on our 2-core machine). Here each character is
 * encoded once per face, text runs share one text object, a face or a colour is set only when it changes, and
 * what is drawn between two page changes is written to the page as one piece.
 */
export class PdfCanvas {
  private readonly faces = new Map<string, Face>();
  private ops: string[] = [];
  private inText = false;
  /** The face and size, and the fill colour, the operators written so far have set; "" when none. */
  private font = '';
  private fill = '';

  constructor(private readonly doc: PDFKit.PDFDocument) {}

  /** The width of `text` set in a registered face at `size` points. */
  width(font: string, size: number, text: string): number {
    if (!UNSHAPED.test(text)) return this.doc.font(font).fontSize(size).widthOfString(text);
    const face = this.face(font);
    let advance = 0;
    for (const char of text) advance += face.glyph(char).advance;
    return (advance * size) / 1000;
  }

  /** Sets `text` with its baseline at `baseline`. */
  text(font: string, size: number, color: string, x: number, baseline: number, text: string): void {
    if (!UNSHAPED.test(text)) {
      this.flush();
      this.doc
        .font(font)
        .fontSize(size)
        .fillColor(color)
        .text(text, x, baseline, { lineBreak: false, baseline: 'alphabetic' });
      return;
    }
    const face = this.face(font);
    this.doc.page.fonts[face.font.id] ??= face.font.ref();
    let bytes = '';
    for (const char of text) bytes += face.glyph(char).bytes;
    if (!this.inText) this.ops.push('BT');
    this.inText = true;
    const selected = `/${face.font.id} ${size} Tf`;
    if (selected !== this.font) this.ops.push(selected);
    this.font = selected;
    this.setFill(color);
    // The page's matrix turns y downwards (pdfkit's), so the text matrix turns it back for upright glyphs.
    this.ops.push(`1 0 0 -1 ${num(x)} ${num(baseline)} Tm (${bytes}) Tj`);
  }

  /** A horizontal hairline. */
  rule(x: number, y: number, width: number, color: string): void {
    this.endText();
    this.ops.push(`0.5 w ${rgb(color)} RG ${num(x)} ${num(y)} m ${num(x + width)} ${num(y)} l S`);
  }

  box(x: number, y: number, width: number, height: number, color: string): void {
    this.endText();
    this.setFill(color);
    this.ops.push(`${num(x)} ${num(y)} ${num(width)} ${num(height)} re f`);
  }

  addPage(): void {
    this.flush();
    this.doc.addPage();
  }

  switchToPage(index: number): void {
    this.flush();
    this.doc.switchToPage(index);
  }

  /** Writes what was drawn since the last flush to the current page, its colours and widths kept inside it. */
  flush(): void {
    this.endText();
    if (this.ops.length > 0) this.doc.addContent(`q\n${this.ops.join('\n')}\nQ`);
    this.ops = [];
    this.font = '';
    this.fill = '';
  }

  private endText(): void {
    if (this.inText) this.ops.push('ET');
    this.inText = false;
  }

  private setFill(color: string): void {
    if (color !== this.fill) this.ops.push(`${rgb(color)} rg`);
    this.fill = color;
  }

  private face(font: string): Face {
    let face = this.faces.get(font);
    if (face === undefined) {
      this.doc.font(font);
      face = new Face((this.doc as unknown as { _font: EmbeddedFont })._font);
      this.faces.set(font, face);
    }
    return face;
  }
}
