import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { UploadPartCommand, type CompletedPart, type S3Client } from '@aws-sdk/client-s3';

export interface MultipartTarget {
  Bucket: string;
  Key: string;
  UploadId: string;
}

/**
 * A stream of one multipart upload's parts: bytes are cut into parts of at least `partBytes` and each is sent
 * with its MD5, so the store checks every part it stores. Up to two parts are in flight; a write waits while
 * they are, which bounds the memory at three parts. Completing the upload is left to the caller (the publish):
 * until then the object does not exist.
 */
export class MultipartWriter extends Writable {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private partNumber = 0;
  private readonly done: CompletedPart[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: Error | null = null;

  constructor(
    private readonly client: Pick<S3Client, 'send'>,
    private readonly target: MultipartTarget,
    private readonly partBytes: number,
  ) {
    super();
  }

  /** The parts sent, in order, once the stream has finished. */
  get parts(): CompletedPart[] {
    return [...this.done].sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
  }

  /** Settles when no part is on its way to the store, whatever their outcome. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    if (this.bufferedBytes < this.partBytes) return callback(this.failure);
    this.sendPart().then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    // An upload needs one part at least, the last may be small, and an empty one is allowed when it is the only one.
    const last = this.bufferedBytes > 0 || this.partNumber === 0 ? this.sendPart() : Promise.resolve();
    last.then(() => Promise.all([...this.inFlight])).then(() => callback(this.failure), callback);
  }

  private async sendPart(): Promise<void> {
    if (this.failure) throw this.failure;
    const body = Buffer.concat(this.buffered, this.bufferedBytes);
    this.buffered = [];
    this.bufferedBytes = 0;
    const PartNumber = ++this.partNumber;
    const sent = this.client
      .send(
        new UploadPartCommand({
          ...this.target,
          PartNumber,
          Body: body,
          ContentLength: body.length,
          ContentMD5: createHash('md5').update(body).digest('base64'),
        }),
      )
      .then(({ ETag }) => void this.done.push({ PartNumber, ETag }))
      .catch((err: unknown) => {
        this.failure ??= err as Error;
      })
      .finally(() => this.inFlight.delete(sent));
    this.inFlight.add(sent);
    if (this.inFlight.size >= 2) await Promise.race(this.inFlight);
    if (this.failure) throw this.failure;
  }
}
