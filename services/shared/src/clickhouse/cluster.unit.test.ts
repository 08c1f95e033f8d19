import { describe, expect, it } from 'vitest';
import { clusterGuard } from './cluster.js';

describe('clusterGuard', () => {
  it('changes nothing on a single server', () => {
    expect(clusterGuard(undefined)).toEqual({
      insertSettings: {},
      readSettings: {},
      processes: 'system.processes',
    });
  });

  it('asks a cluster for quorum inserts, consistent duplicate checks and every replica’s queries', () => {
    expect(clusterGuard('audit_cluster')).toEqual({
      insertSettings: { insert_quorum: 'auto', insert_quorum_parallel: 0 },
      readSettings: { select_sequential_consistency: '1' },
      processes: "clusterAllReplicas('audit_cluster', system.processes)",
    });
  });
});
