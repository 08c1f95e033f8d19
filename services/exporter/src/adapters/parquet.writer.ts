import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  emptyRowGroup,
  PARQUET_COLUMNS,
  ROW_GROUP_ROWS,
  transferables,
  type RowGroup,
} from '../domain/row-group.js';
import type { EncoderMessage, EncoderSettings } from './parquet.worker.js';

// Row groups handed over and not yet taken by the encoder: enough to keep it busy, little to hold.
const MAX_WAITING_GROUPS = 2;

// The thread's module beside this one: TypeScript under tsx and the tests, JavaScript in the build.
const WORKER = new URL(`./parquet.worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

const SETTINGS: EncoderSettings = {
  columns: PARQUET_COLUMNS.map((c) => ({ ...c })),
  rowGroupRows: ROW_GROUP_ROWS,
  dictionaryColumns: ['tenant_id', 'action', 'user_role', 'resource_type', 'user_agent', 'justification'],
};

/**
 * The Parquet encoder (parquet-wasm, Rust's arrow-rs compiled to WebAssembly) in a thread of its own: this
 * thread only lays the rows read out in columns, so reading and encoding run side by side. One thread per
 * file, ended with it, which also frees the WebAssembly memory the file's footer grew.
 */
class ParquetEncoder {
  private readonly worker = new Worker(WORKER, { workerData: SETTINGS });
  private pieces: Buffer[] = [];
  private waiting = 0;
  private done = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(written: (rows: number) => void) {
    this.worker.on('message', (message: EncoderMessage) => {
      if ('bytes' in message) {
        const { bytes } = message;
        this.pieces.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
      } else if ('taken' in message) {
        this.waiting -= 1;
        if (message.taken > 0) written(message.taken);
      } else {
        this.done = true;
      }
      this.signal();
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => {
      if (!this.done) this.fail(new Error(`the Parquet encoder stopped (exit code ${code})`));
    });
  }

  /** Hands a row group over, once the encoder has room for it. */
  async encode(group: RowGroup): Promise<void> {
    await this.until(() => this.waiting < MAX_WAITING_GROUPS);
    this.waiting += 1;
    this.worker.postMessage(group, transferables(group));
  }

  /** The file's bytes encoded since the last call. */
  take(): Buffer[] {
    const pieces = this.pieces;
    this.pieces = [];
    return pieces;
  }

  /** Ends the file; resolves once its last bytes (the footer) are here. */
  async finish(): Promise<void> {
    this.worker.postMessage(null);
    await this.until(() => this.done);
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private fail(err: Error) {
    this.failure ??= err;
    this.signal();
  }

  private signal() {
    this.wake?.();
    this.wake = null;
  }

  private async until(ready: () => boolean): Promise<void> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (ready()) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

/**
 * The row groups, in the order given, as one Parquet file's bytes (docs/exports.md "Files"): SNAPPY pages,
 * typed columns. The caller's stream pulls the bytes, so a slow or failed destination stops the writing.
 * `written` is called with the rows of each group as the encoder takes it.
 */
export async function* parquetFile(
  groups: AsyncIterable<RowGroup>,
  written: (rows: number) => void,
): AsyncGenerator<Buffer> {
  const encoder = new ParquetEncoder(written);
  try {
    let none = true;
    for await (const group of groups) {
      await encoder.encode(group);
      none = false;
      yield* encoder.take();
    }
    // An empty window still gets a file with the columns and no rows.
    if (none) await encoder.encode(emptyRowGroup());
    await encoder.finish();
    yield* encoder.take();
  } finally {
    await encoder.close();
  }
}
