-- Companies, users, profiles, memberships, API clients and tokens.
-- Timestamps are epoch milliseconds in bigint columns, as the API speaks them.

CREATE TABLE companies (
  uid text PRIMARY KEY,
  name text NOT NULL,
  address text,
  n_factor boolean NOT NULL DEFAULT false,
  ip_filtering boolean NOT NULL DEFAULT false,
  ip_filters jsonb NOT NULL DEFAULT '{"startIPAddress":null,"endIPAddress":null,"ipAddresses":[]}',
  device_ip_filtering boolean NOT NULL DEFAULT false,
  device_ip_filters jsonb NOT NULL DEFAULT '{"startIPAddress":null,"endIPAddress":null,"ipAddresses":[]}',
  system_limit integer,
  has_picture boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL
);
-- docs/api.md#users-and-companies: the name is unique across the whole service.
CREATE UNIQUE INDEX companies_name_key ON companies (lower(name));

-- A company's partners: the companies it may transfer systems to.
CREATE TABLE company_partners (
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  partner_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  PRIMARY KEY (company_uid, partner_uid)
);

CREATE TABLE company_pictures (
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  size text NOT NULL,
  content_type text NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (company_uid, size)
);

CREATE TABLE profiles (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  name text NOT NULL,
  rights text[] NOT NULL
);
CREATE UNIQUE INDEX profiles_company_name_key ON profiles (company_uid, name);

CREATE TABLE users (
  uid text PRIMARY KEY,
  email text NOT NULL,
  name text NOT NULL,
  phone_number text,
  password_hash text,
  company_uid text NOT NULL REFERENCES companies (uid),
  created_at bigint NOT NULL
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- A user's access to a company: the profile (named set of rights) held there and whether administrator.
CREATE TABLE memberships (
  user_uid text NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  profile_uid text REFERENCES profiles (uid) ON DELETE SET NULL,
  administrator boolean NOT NULL DEFAULT false,
  PRIMARY KEY (user_uid, company_uid)
);
CREATE INDEX memberships_company_idx ON memberships (company_uid);

CREATE TABLE api_clients (
  client_id text PRIMARY KEY,
  secret_hash text NOT NULL,
  name text NOT NULL,
  user_uid text REFERENCES users (uid) ON DELETE SET NULL,
  created_at bigint NOT NULL
);

-- Tokens are kept only as SHA-256 hashes (docs/api.md#get-a-token), shared by every API process.
CREATE TABLE tokens (
  hash text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  client_id text NOT NULL REFERENCES api_clients (client_id) ON DELETE CASCADE,
  user_uid text REFERENCES users (uid) ON DELETE CASCADE,
  pair_hash text,
  expires_at bigint NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX tokens_expires_idx ON tokens (expires_at);
