-- `fleet admin unlock <email>` (docs/security.md#sign-in-throttling): when an administrator last cleared an account's
-- sign-in counters. The counters live in each process's memory or in Redis; the time is part of their keys, so every
-- process starts the account's counters afresh from the next try. account_hash: sha256 of the lower-cased e-mail.
CREATE TABLE sign_in_unlocks (
  account_hash text PRIMARY KEY,
  unlocked_at bigint NOT NULL
);
