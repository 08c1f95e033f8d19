import { execFile } from 'node:child_process';

/**
 * A PDF read back as a reader would, with poppler's tools (Debian's poppler-utils, which scripts/ensure-poppler.sh
 * installs): the PDF on standard input, the tool's text on standard output.
 */
export function poppler(tool: 'pdftotext' | 'pdfinfo', args: string[], pdf: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(tool, args, { maxBuffer: 64 << 20 }, (err, stdout) => {
      if (!err) return resolve(stdout);
      const missing = err.code === 'ENOENT';
      reject(
        missing ? new Error(`no ${tool}: run "source scripts/ensure-poppler.sh && ensure_poppler"`) : err,
      );
    });
    child.stdin!.end(pdf);
  });
}

/** The text laid out as on the page. */
export const pdfText = (pdf: Buffer) => poppler('pdftotext', ['-layout', '-', '-'], pdf);

/** The text in the order it was drawn (cell by cell): a word cut across lines of a cell reads whole. */
export const pdfDrawnText = (pdf: Buffer) => poppler('pdftotext', ['-raw', '-', '-'], pdf);
