-- Refresh token rotation with reuse detection (RFC 9700, the OAuth 2.0 Security BCP, §4.14.2): every token issued
-- from one grant, and from each refresh after it, shares a family; a used refresh token is kept (used_at set) until
-- it expires, so that presenting it again is recognised as a replay and revokes the whole family.
ALTER TABLE tokens ADD COLUMN family text;
ALTER TABLE tokens ADD COLUMN used_at bigint;
-- Tokens issued before this migration: each pair is its own family, named after its refresh token.
UPDATE tokens SET family = CASE WHEN kind = 'refresh' THEN hash ELSE coalesce(pair_hash, hash) END;
ALTER TABLE tokens ALTER COLUMN family SET NOT NULL;
CREATE INDEX tokens_family_idx ON tokens (family);
