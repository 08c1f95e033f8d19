import { randomBytes } from 'node:crypto';

/** Fresh tenant, topic prefix, database and group names, so tests never see each other's data. */
export function uniqueNames(label: string) {
  const id = `${label}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  return {
    id,
    tenant: `tenant-${id}`,
    topicPrefix: `t.${id}.`,
    database: `audit_t_${id}`.replace(/[^A-Za-z0-9_]/g, '_'),
    groupId: `projector-${id}`,
    ingestToken: randomBytes(24).toString('hex'),
  };
}

export type TestNames = ReturnType<typeof uniqueNames>;
