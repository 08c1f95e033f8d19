import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the viewer's production build lives (scripts/build-viewer.ts writes it; the image carries it). */
export const VIEWER_ASSETS_DIR = fileURLToPath(new URL('../../viewer-dist/', import.meta.url));

export interface ViewerAssets {
  /** The folder of its scripts and styles, served as they are; its page is beside it, not in it. */
  dir: string;
  /** Its one HTML page; null when the viewer was not built. */
  page: string | null;
}

/** The built viewer in `dir`, its page read once: it changes only with a new build, which is a new process. */
export function viewerAssets(built: string = VIEWER_ASSETS_DIR): ViewerAssets {
  const index = `${built}index.html`;
  return { dir: `${built}assets/`, page: existsSync(index) ? readFileSync(index, 'utf8') : null };
}
