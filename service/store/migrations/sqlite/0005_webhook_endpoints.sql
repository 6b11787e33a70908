-- The webhook endpoints of client apps (service/store/webhook_records.py): the store
-- of record. The record is the endpoint as JSON, its signing secret in it as it is:
-- a signature needs the secret itself (docs/webhooks.md), so it cannot be hashed.
CREATE TABLE webhook_endpoints (
    endpoint_id TEXT PRIMARY KEY,
    app         TEXT NOT NULL,
    created     REAL NOT NULL,
    record      TEXT NOT NULL
);
-- An app's endpoints, oldest first.
CREATE INDEX webhook_endpoints_by_app ON webhook_endpoints (app, created);
