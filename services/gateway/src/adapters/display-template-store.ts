import type pg from 'pg';
import { inTransaction, lockTenant } from '@audit/shared/platform';

/** One version of a tenant's template for a selector; `template` null: removed in this version. */
export interface TemplateVersion {
  selector: string;
  version: number;
  template: string | null;
  changed_at: Date;
  changed_by: string;
}

/** Announces a stored change (its audit event); the change commits only after it resolved. */
export type AnnounceTemplate = (version: TemplateVersion) => Promise<void>;

const COLUMNS = 'selector, version, template, changed_at, changed_by';

/** The tenant's display templates in Postgres, every version kept (docs/viewer.md "Display templates"). */
export function displayTemplateStore(pool: pg.Pool) {
  const latest = async (db: Pick<pg.ClientBase, 'query'>, tenantId: string, selector?: string) => {
    const { rows } = await db.query<TemplateVersion>(
      `SELECT DISTINCT ON (selector) ${COLUMNS} FROM display_templates
        WHERE tenant_id = $1 AND ($2::text IS NULL OR selector = $2)
        ORDER BY selector, version DESC`,
      [tenantId, selector ?? null],
    );
    return rows;
  };

  return {
    /** The tenant's templates as they are now, by selector. */
    current: async (tenantId: string): Promise<TemplateVersion[]> =>
      (await latest(pool, tenantId)).filter((t) => t.template !== null),

    /**
     * Stores a new version of the selector's template: null when the tenant has `max` other templates already.
     * The tenant's lock makes the version number and the count exact under concurrent requests.
     */
    put(
      tenantId: string,
      change: { selector: string; template: string; by: string },
      max: number,
      announce: AnnounceTemplate,
    ): Promise<TemplateVersion | null> {
      return inTransaction(pool, async (db) => {
        await lockTenant(db, 'displayTemplates', tenantId);
        const all = await latest(db, tenantId);
        const others = all.filter((t) => t.template !== null && t.selector !== change.selector).length;
        if (others >= max) return null;
        const previous = all.find((t) => t.selector === change.selector)?.version ?? 0;
        const stored = await insert(db, tenantId, change.selector, previous + 1, change.template, change.by);
        await announce(stored);
        return stored;
      });
    },

    /** Adds a version without a template: false when the selector has no template now. */
    remove(tenantId: string, selector: string, by: string, announce: AnnounceTemplate): Promise<boolean> {
      return inTransaction(pool, async (db) => {
        await lockTenant(db, 'displayTemplates', tenantId);
        const [now] = await latest(db, tenantId, selector);
        if (!now || now.template === null) return false;
        await announce(await insert(db, tenantId, selector, now.version + 1, null, by));
        return true;
      });
    },

    /** Every version of the selector's template, newest first. */
    async versions(tenantId: string, selector: string, limit: number): Promise<TemplateVersion[]> {
      const { rows } = await pool.query<TemplateVersion>(
        `SELECT ${COLUMNS} FROM display_templates WHERE tenant_id = $1 AND selector = $2
          ORDER BY version DESC LIMIT $3`,
        [tenantId, selector, limit],
      );
      return rows;
    },
  };
}

async function insert(
  db: Pick<pg.ClientBase, 'query'>,
  tenantId: string,
  selector: string,
  version: number,
  template: string | null,
  by: string,
): Promise<TemplateVersion> {
  const { rows } = await db.query<TemplateVersion>(
    `INSERT INTO display_templates (tenant_id, selector, version, template, changed_by)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [tenantId, selector, version, template, by],
  );
  return rows[0]!;
}

export type DisplayTemplateStore = ReturnType<typeof displayTemplateStore>;
