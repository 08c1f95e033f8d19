-- Per-key token buckets shared by every gateway process (decisions.md: limits hold across the deployment).
CREATE TABLE rate_limit_buckets (
    prefix     text NOT NULL,
    class      text NOT NULL CHECK (class IN ('read', 'write')),
    tokens     double precision NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (prefix, class)
);

-- Takes one token if there is one. The row lock makes concurrent gateways queue on the same bucket, so the budget
-- is exact across processes. Refill is continuous: capacity per minute, spread evenly.
CREATE FUNCTION take_rate_token(p_prefix text, p_class text, p_capacity double precision, p_per_second double precision)
RETURNS TABLE (allowed boolean, remaining double precision)
LANGUAGE plpgsql AS $$
DECLARE
    t double precision;
    u timestamptz;
    n timestamptz := clock_timestamp();
BEGIN
    INSERT INTO rate_limit_buckets (prefix, class, tokens, updated_at)
    VALUES (p_prefix, p_class, p_capacity, n)
    ON CONFLICT (prefix, class) DO NOTHING;
    SELECT b.tokens, b.updated_at INTO t, u
    FROM rate_limit_buckets b WHERE b.prefix = p_prefix AND b.class = p_class FOR UPDATE;
    t := LEAST(p_capacity, t + GREATEST(0, EXTRACT(EPOCH FROM n - u)) * p_per_second);
    allowed := t >= 1;
    IF allowed THEN
        t := t - 1;
    END IF;
    UPDATE rate_limit_buckets SET tokens = t, updated_at = n WHERE prefix = p_prefix AND class = p_class;
    remaining := t;
    RETURN NEXT;
END
$$;
