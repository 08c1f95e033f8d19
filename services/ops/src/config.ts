import { z } from 'zod';
import { optionalPepperEnv } from '@audit/shared/api-keys';
import { schemasDirEnv } from '@audit/shared/contract';
import { exportStorageEnv, exportStorageSettings } from '@audit/shared/export-jobs';
import { integrityEnv, integritySettings } from '@audit/shared/integrity';
import { serviceLoginEnv, serviceLoginSettings } from '@audit/shared/migrations';
import { listenerParts, projectorGroupEnv, serviceConfig } from '@audit/shared/platform';
import { purgeNodesEnv } from '@audit/shared/retention';

/**
 * The environment variables the ops CLI reads, each described for docs/configuration.md; those it shares with a
 * service must be described as that service describes them (scripts/config-doc.ts checks).
 */
export const { envSchema, loadConfig } = serviceConfig(
  'ops',
  ['kafka', 'clickhouse', 'postgres'],
  {
    // `migrate` prepares the export store (the bucket) the services are given, and their roles' logins.
    ...exportStorageEnv,
    ...serviceLoginEnv,
    // `integrity keys` writes new keys' private halves where the notary reads them.
    ...integrityEnv,
    // Only the keys commands need the pepper; they refuse to run without it.
    ...optionalPepperEnv,
    OPERATOR_ID: z.string().min(1).max(256).optional().meta({
      description:
        'the actor recorded in the audit events of operator changes (keys, signing keys, tenant names, retention, holds)',
      defaultText: '`operator:<OS user>`',
    }),
    // Where `status` finds the services: the same variables and defaults the services listen by.
    ...listenerParts.gateway.env,
    ...listenerParts.ingest.env,
    ...listenerParts.projector.env,
    ...listenerParts.dispatcher.env,
    ...listenerParts.exporter.env,
    ...listenerParts.notary.env,
    ...listenerParts.custodian.env,
    // The projectors' group: `replay projection` waits for its members, and names the replay's group after it.
    ...projectorGroupEnv,
    // As the projector's: `dlq show` and `replay webhooks` decode with the contract versions the projector has.
    ...schemasDirEnv,
    // `retention purge` deletes on each shard of a cluster, as the custodian does.
    ...purgeNodesEnv,
  },
  (e, ctx) => ({
    exportStorage: exportStorageSettings(e, ctx),
    serviceLogins: serviceLoginSettings(e),
    integrity: integritySettings(e),
    apiKeyPepper: e.API_KEY_PEPPER,
    apiKeyEnv: e.API_KEY_ENV,
    operatorId: e.OPERATOR_ID,
    projectorGroupId: e.PROJECTOR_GROUP_ID,
    schemasDir: e.SCHEMAS_DIR,
    nodeUrls: e.CLICKHOUSE_NODE_URLS,
    services: {
      gateway: listenerParts.gateway.settings(e),
      ingest: listenerParts.ingest.settings(e),
      projector: listenerParts.projector.settings(e),
      dispatcher: listenerParts.dispatcher.settings(e),
      exporter: listenerParts.exporter.settings(e),
      notary: listenerParts.notary.settings(e),
      custodian: listenerParts.custodian.settings(e),
    },
  }),
);

export type OpsConfig = ReturnType<typeof loadConfig>;
