-- Per-key token buckets shared by every gateway process (decisions.md: limits hold across the deployment).
-- UNLOGGED: a crash loses the buckets, which only refills every budget; in exchange no request waits for a WAL
-- flush.
CREATE UNLOGGED TABLE rate_limit_buckets (
    prefix     text NOT NULL,
    class      text NOT NULL CHECK (class IN ('read', 'write')),
    tokens     double precision NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (prefix, class)
);

-- Takes one token if there is one. The row lock makes concurrent gateways queue on the same bucket, so the budget
-- is exact across processes; the time is read only once the lock is held, so a request that waited for the lock
-- is never refilled for time another request already used. A refusal writes nothing. Refill is continuous:
-- capacity per minute, spread evenly. All gateways must be configured with the same capacities.
CREATE FUNCTION take_rate_token(p_prefix text, p_class text, p_capacity double precision, p_per_second double precision)
RETURNS TABLE (allowed boolean, remaining double precision)
LANGUAGE plpgsql
SET search_path = public
AS $$
DECLARE
    t double precision;
    u timestamptz;
    n timestamptz;
BEGIN
    INSERT INTO rate_limit_buckets (prefix, class, tokens, updated_at)
    VALUES (p_prefix, p_class, p_capacity, clock_timestamp())
    ON CONFLICT (prefix, class) DO NOTHING;
    SELECT b.tokens, b.updated_at INTO t, u
    FROM rate_limit_buckets b WHERE b.prefix = p_prefix AND b.class = p_class FOR UPDATE;
    n := GREATEST(u, clock_timestamp());
    t := LEAST(p_capacity, t + EXTRACT(EPOCH FROM n - u) * p_per_second);
    -- Tolerance for floating-point drift: 0.9999999999 tokens is one token.
    allowed := t >= 1 - 1e-9;
    IF allowed THEN
        t := GREATEST(0, t - 1);
        UPDATE rate_limit_buckets SET tokens = t, updated_at = n WHERE prefix = p_prefix AND class = p_class;
    END IF;
    remaining := t;
    RETURN NEXT;
END
$$;
