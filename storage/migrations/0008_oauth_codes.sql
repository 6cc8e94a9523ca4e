-- The authorization_code grant (docs/api.md#get-a-token): a client lists the redirect URIs it may use, and
-- a code, like a token, is kept only as a hash. A code is used once: the token step deletes it.
ALTER TABLE api_clients ADD COLUMN redirect_uris text[] NOT NULL DEFAULT '{}';

CREATE TABLE oauth_codes (
  hash text PRIMARY KEY,
  client_id text NOT NULL REFERENCES api_clients (client_id) ON DELETE CASCADE,
  user_uid text NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  expires_at bigint NOT NULL,
  created_at bigint NOT NULL
);
