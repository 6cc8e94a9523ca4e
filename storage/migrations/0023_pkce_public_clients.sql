-- PKCE (RFC 7636) for the authorization_code grant: the code keeps the challenge given at /api/oauth/authorize (null
-- when the client sent none), checked against the verifier at /api/oauth/token. A public client (the web console) has
-- no secret.
ALTER TABLE oauth_codes ADD COLUMN code_challenge text;
ALTER TABLE api_clients ALTER COLUMN secret_hash DROP NOT NULL;
