import { describe, expect, it } from 'vitest';
import { clusterGuardOf, SINGLE_SERVER, type ClusterFacts } from './cluster.js';

const facts: ClusterFacts = {
  cluster: 'audit',
  replicas: 2,
  hosts: ['127.0.0.1:22201', '127.0.0.1:22202', '127.0.0.1:22203', '127.0.0.1:22204'],
  quorumParallelSetting: false,
  allReplicasFunction: false,
};

describe('clusterGuardOf', () => {
  it('changes nothing on a single server', () => {
    expect(SINGLE_SERVER).toEqual({
      insertSettings: {},
      readSettings: {},
      processes: 'system.processes',
      replicas: null,
    });
  });

  it('asks 18.16 for a numeric majority quorum and reads every replica’s queries through remote()', () => {
    expect(clusterGuardOf(facts)).toEqual({
      insertSettings: { insert_quorum: '2', insert_quorum_timeout: 20_000, load_balancing: 'in_order' },
      readSettings: { select_sequential_consistency: '1', load_balancing: 'in_order' },
      processes:
        "remote('127.0.0.1:22201,127.0.0.1:22202,127.0.0.1:22203,127.0.0.1:22204', system, processes)",
      replicas: "remote('127.0.0.1:22201,127.0.0.1:22202,127.0.0.1:22203,127.0.0.1:22204', system, replicas)",
    });
  });

  it('asks a current engine for sequential quorum inserts and uses clusterAllReplicas', () => {
    const guard = clusterGuardOf({
      ...facts,
      replicas: 3,
      quorumParallelSetting: true,
      allReplicasFunction: true,
    });
    expect(guard.insertSettings).toEqual({
      insert_quorum: '2',
      insert_quorum_timeout: 20_000,
      insert_quorum_parallel: 0,
      load_balancing: 'in_order',
    });
    expect(guard.processes).toBe("clusterAllReplicas('audit', system.processes)");
    expect(guard.replicas).toBe("clusterAllReplicas('audit', system.replicas)");
  });

  it('never asks for 0: one replica is a quorum of one', () => {
    expect(clusterGuardOf({ ...facts, replicas: 1 }).insertSettings.insert_quorum).toBe('1');
  });
});
