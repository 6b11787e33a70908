-- The client apps and their keys (service/store/app_records.py): the store of record,
-- Redis a cache of it. A key is kept only as its SHA-256, so a copy of the database
-- opens no app's account; an app's key never changes, so its hash is unique.
-- Times are seconds since the epoch, as the API's records give them.
CREATE TABLE client_apps (
    client_id  text             PRIMARY KEY,
    name       text             NOT NULL,
    key_sha256 text             NOT NULL UNIQUE,
    created    double precision NOT NULL,
    revoked_at double precision
);
