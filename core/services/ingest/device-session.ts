// What a transport knows of a device once it is admitted (a login, a signed M3DA envelope): its own file, so that
// the ways of admitting devices (devices.service.ts, m3da-devices.ts) share it without importing each other.

/** A device once authenticated: the system it is and the login it used (its topics start with it). */
export interface DeviceSession { systemUid: string, companyUid: string, username: string }
