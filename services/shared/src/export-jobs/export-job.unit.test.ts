import { describe, expect, it } from 'vitest';
import { DecodeError, singleObjectCodec } from '../contract/codec/single-object.codec.js';
import { loadSchemaVersions } from '../contract/codec/schema-registry.js';
import { exportJobCodec, type ExportJobRequest } from './export-job.js';

const request: ExportJobRequest = {
  jobId: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90',
  tenantId: 'acme',
  format: 'csv',
  filters: { action: 'phi.read', phi_involved: true, since: 1_700_000_000_000 },
  since: 1_700_000_000_000,
  until: 1_700_086_400_000,
  acceptedAt: 1_700_086_400_000,
  requestedBy: 'ak_live_0123456789ab',
};

describe('the export job request codec', () => {
  it('round-trips a request', () => {
    const codec = exportJobCodec();
    expect(codec.decode(codec.encode(request))).toEqual(request);
  });

  it('refuses a record whose format or filters are not what the API accepts, as a decode error', () => {
    const raw = singleObjectCodec<Record<string, unknown>>(loadSchemaVersions('export-job'));
    const record = {
      job_id: request.jobId,
      tenant_id: 'acme',
      format: 'csv',
      filters: '{}',
      since: 0,
      until: 1,
      accepted_at: 1,
      requested_by: 'k',
    };
    const codec = exportJobCodec();
    expect(() => codec.decode(raw.encode({ ...record, format: 'xlsx' }))).toThrow(DecodeError);
    expect(() => codec.decode(raw.encode({ ...record, filters: '{"action":' }))).toThrow(DecodeError);
    expect(() => codec.decode(raw.encode({ ...record, filters: '{"action":{"$ne":1}}' }))).toThrow(
      DecodeError,
    );
    expect(codec.decode(raw.encode(record)).filters).toEqual({});
  });
});
