-- Display templates (docs/viewer.md "Display templates"): per tenant, a sentence per action or action prefix that
-- the viewer shows for each event. Versioned: a change adds a version and never rewrites one; a removal is a
-- version without a template. The current template of a selector is its latest version.
CREATE TABLE display_templates (
    tenant_id   text NOT NULL CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    selector    text NOT NULL CHECK (length(selector) BETWEEN 1 AND 100),
    version     integer NOT NULL CHECK (version > 0),
    template    text CHECK (length(template) BETWEEN 1 AND 500),
    changed_at  timestamptz NOT NULL DEFAULT now(),
    changed_by  text NOT NULL,
    PRIMARY KEY (tenant_id, selector, version)
);

GRANT SELECT, INSERT ON display_templates TO audit_gateway;
