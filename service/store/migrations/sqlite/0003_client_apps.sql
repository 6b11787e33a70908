-- The client apps and their keys (service/store/app_records.py): the store of record,
-- Redis a cache of it. A key is kept only as its SHA-256, so a copy of the database
-- opens no app's account; an app's key never changes, so its hash is unique.
CREATE TABLE client_apps (
    client_id  TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    key_sha256 TEXT NOT NULL UNIQUE,
    created    REAL NOT NULL,
    revoked_at REAL
);
