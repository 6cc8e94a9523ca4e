// The configuration of the data kept and of the work done on it: communication status, rollups and retention, the
// operations' workers and what they send (e-mails, SMS shoulder taps, callbacks).

export interface OperationsConfig {
  /** Expected communication period of a system without heartbeat, for commStatus WARNING/ERROR. */
  COMM_PERIOD_S: number
  /** Aggregations fold the hourly rollups (default); false: they read the raw points only (docs/store.md#rollups). */
  DATA_ROLLUPS: boolean
  /**
   * Raw data points and device messages older than this many days expire, by whole UTC months (the monthly points
   * partitions, core/domain/point-partitions.ts); hourly rollups stay. 0: everything is kept.
   */
  DATA_RETENTION_DAYS: number
  /** Bound on concurrently running operation tasks in one process. */
  WORKER_CONCURRENCY: number
  /** SMTP server for operation e-mails; absent: .eml files in DATA_DIR/outbox. */
  SMTP_URL: string | undefined
  SMTP_FROM: string
  /**
   * HTTP SMS gateway of the connection request (docs/devices.md: the SMS shoulder tap), http or https;
   * credentials in the URL become Basic auth. Absent: tasks wait for the device's next connection.
   */
  SMS_GATEWAY_URL: string | undefined
  /** Secret of the X-Fleet-Signature header of operation callbacks; absent: unsigned. */
  CALLBACK_SECRET: string | undefined
  /** Allow callbacks to loopback, link-local and private addresses (tests, on-premises). */
  CALLBACK_ALLOW_PRIVATE: boolean
  /** Delay before the first retry of a failed callback; each next one doubles it (default 30 s; tests shorten it). */
  CALLBACK_RETRY_BASE_MS: number
  /**
   * The largest package a release request may send (docs/packages.md#release-and-publish): the body is written to
   * DATA_DIR while it arrives; past this its release fails with application.release.too.large.
   */
  APPLICATION_RELEASE_MAX_BYTES: number
}
