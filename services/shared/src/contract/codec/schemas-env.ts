import { z } from 'zod';

/** Where the event contract's versions are read from: the projector, and the ops CLI that decodes as it does. */
export const schemasDirEnv = {
  SCHEMAS_DIR: z
    .string()
    .min(1)
    .optional()
    .meta({
      description:
        'a directory with `audit-event/vN.avsc`: the event contract versions the projector reads ' +
        '(`docs/operations.md`)',
      defaultText: "the checkout's `schemas/`",
    }),
};
