-- The webhook endpoints of client apps (service/store/webhook_records.py): the store
-- of record. The record is the endpoint as JSON, its signing secret in it as it is:
-- a signature needs the secret itself (docs/webhooks.md), so it cannot be hashed.
CREATE TABLE webhook_endpoints (
    endpoint_id text COLLATE "C" PRIMARY KEY,
    app         text COLLATE "C" NOT NULL,
    created     double precision NOT NULL,
    record      text NOT NULL
);
-- An app's endpoints, oldest first.
CREATE INDEX webhook_endpoints_by_app ON webhook_endpoints (app, created);
