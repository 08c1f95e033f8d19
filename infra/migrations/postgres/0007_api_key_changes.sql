-- Every change to a key is announced at commit on the channel `api_key_changes`, its payload the prefix. The
-- gateways keep the set of prefixes that exist from these announcements, so a key with an unknown prefix is refused
-- without a query, and a revocation applies at once (docs/api-keys.md "Failed authentication").
CREATE FUNCTION announce_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('api_key_changes', COALESCE(NEW.prefix, OLD.prefix));
    RETURN NULL;
END;
$$;

CREATE TRIGGER api_keys_announce AFTER INSERT OR UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION announce_api_key_change();
