-- The implicit grant (response_type=token) only for the clients registered for it (seed `implicitGrant`): its token
-- travels in the redirect URI's fragment, where a code, useless without the client, would have been.
ALTER TABLE api_clients ADD COLUMN implicit_grant boolean NOT NULL DEFAULT false;
