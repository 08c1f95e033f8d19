import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type FontWeight = 'regular' | 'bold';

const require = createRequire(import.meta.url);

// The fonts come from npm packages rather than the machine: the service runs in a slim image with no fonts, and
// pdfkit's standard fonts encode WinAnsi only. DejaVu Sans Condensed (Bitstream Vera license, which permits
// embedding) covers Latin, Greek, Cyrillic, Armenian, Georgian, Hebrew and Arabic; its narrow glyphs fit seven
// columns on a Letter page. It has no Chinese or Japanese, so those are set in Noto Sans CJK's simplified Chinese
// cut (SIL Open Font License 1.1: GB 2312's hanzi and the kana). Neither covers Hangul or Indic scripts. The Noto
// package's exports hide its folder: the fonts are found beside the entry point it does export.
const DEJAVU = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const NOTO_HANS = join(dirname(require.resolve('@embedpdf/fonts-sc')), '..', 'fonts');

const FILES: Record<string, string> = {
  regular: join(DEJAVU, 'DejaVuSansCondensed.ttf'),
  bold: join(DEJAVU, 'DejaVuSansCondensed-Bold.ttf'),
  'regular-cjk': join(NOTO_HANS, 'NotoSansHans-Regular.otf'),
  'bold-cjk': join(NOTO_HANS, 'NotoSansHans-Bold.otf'),
};

/**
 * Registers every face by name. pdfkit reads and embeds a face only once text is set in it, so a report without
 * Chinese or Japanese text carries none of Noto's bytes, nor the time its subset takes (about 150 ms).
 */
export function registerFonts(doc: PDFKit.PDFDocument): void {
  for (const [name, file] of Object.entries(FILES)) doc.registerFont(name, file);
}

/** Han, kana, Bopomofo, and the CJK punctuation and full-width forms: the characters set in the CJK face. */
export const CJK_CHARS =
  '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Bopomofo}\\u3000-\\u303f\\uff00-\\uffef';

/** The registered name of a weight's face, for the CJK characters or for all others. */
export const fontName = (weight: FontWeight, cjk: boolean): string => (cjk ? `${weight}-cjk` : weight);
