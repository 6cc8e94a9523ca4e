// The package download links' port (docs/packages.md#downloads): one row per link, found by the SHA-256 of its token
// (the token itself is never stored), with the bytes served through it.

/** What a link is made for: one binary of one install task of one system, until the operation's timeout. */
export interface DownloadLinkInput {
  systemUid: string
  /** The operation task the link serves (operation_tasks.uid): the link goes when the task does. */
  taskUid: string
  /** The artifact store's key of the binary (core/ports/artifacts.ts). */
  artifact: string
  /** The binary's name as its package names it (the download's file name). */
  file: string
  size: number
  /** Epoch ms after which the link answers 404. */
  expiresAt: number
}

export interface PackageDownload extends DownloadLinkInput {
  bytesServed: number
  firstDownloadAt: number | null
  lastDownloadAt: number | null
}

/** Bytes served through one link since the last write, and when. */
export interface ServedBytes { tokenSha256: string, bytes: number, first: number, last: number }

export interface PackageDownloadsRepository {
  insert (tokenSha256: string, link: DownloadLinkInput, createdAt: number): Promise<void>
  find (tokenSha256: string): Promise<PackageDownload | undefined>
  /** Adds what several links served, in one statement (a link gone meanwhile is skipped). */
  addServed (served: readonly ServedBytes[]): Promise<void>
  /** Removes the links of these tasks (a cancelled or finished install); answers how many. */
  removeForTasks (taskUids: readonly string[]): Promise<number>
  /** Removes the links expired before `before`; answers how many. */
  removeExpired (before: number): Promise<number>
}
