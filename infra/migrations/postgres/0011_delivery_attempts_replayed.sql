-- The delivery attempts an endpoint's owner reads by event (docs/webhooks.md "Delivery attempts"). The normal
-- path's attempts of an event are found through webhook_delivery_attempts_once (0004); replayed ones had no index
-- on the event, so asking for one event read every attempt of the endpoint. Replays are rare, so this index is
-- small and costs nothing on the delivery path.
CREATE INDEX webhook_delivery_attempts_replayed ON webhook_delivery_attempts (endpoint_id, event_id) WHERE replay;
