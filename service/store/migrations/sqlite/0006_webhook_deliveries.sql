-- Webhook deliveries and each endpoint's log of them (service/store/webhook_records.py),
-- bounded by age: a delivery is kept until kept_until_ms (DELIVERY_SECONDS after it was
-- made or last asked for again), and the older ones of an endpoint are deleted as new
-- ones come. The record is the delivery as JSON, its body and attempts in it.
CREATE TABLE webhook_deliveries (
    delivery_id   TEXT PRIMARY KEY,
    app           TEXT NOT NULL,
    endpoint_id   TEXT NOT NULL,
    created_ms    INTEGER NOT NULL,
    kept_until_ms INTEGER NOT NULL,
    record        TEXT NOT NULL
);
-- An endpoint's log, newest first.
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, created_ms DESC, delivery_id DESC);
-- What age has let go of.
CREATE INDEX webhook_deliveries_kept ON webhook_deliveries (kept_until_ms);
