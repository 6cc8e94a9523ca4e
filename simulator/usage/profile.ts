// What a simulated SIM's traffic looks like to its operator (the usage feed, simulator/usage/feed.ts): how often
// something happens, the mix of record types, how long sessions last and how much they carry, where the SIM is.
// The figures are those of small telemetry gateways: short DATA sessions that upload a few kilobytes, a share of
// always-on sessions of hours that the operator reports in interim records, now and then a firmware download,
// SMS to and from the platform, an emergency-line call, a USSD balance query.

/** The record types of docs/usage.md. */
export type UsageType = 'DATA' | 'SMS_SENT' | 'SMS_RECEIVED' | 'VOICE_IN' | 'VOICE_OUT' | 'MSU'

export interface UsageProfile {
  /** Events (sessions, SMS, calls, USSD) per SIM per hour, on average (a Poisson process). */
  eventsPerHour: number
  /** Relative weight of each record type among the events. */
  mix: Readonly<Record<UsageType, number>>
  /** Share of DATA sessions that stay open for hours (the others last seconds to minutes). */
  longSessionShare: number
  /** While a DATA session is open the operator reports it every interimMs, in an interim record (`partial` true). */
  interimMs: number
  /** Share of DATA sessions that download a firmware image (1 to 4 MB received). */
  firmwareShare: number
  /** Share of SIMs deployed abroad: their records name a visited network. */
  roamingShare: number
  /** The APN of the DATA sessions. */
  apn: string
}

export const DEFAULT_USAGE_PROFILE: Readonly<UsageProfile> = Object.freeze({
  eventsPerHour: 2,
  mix: Object.freeze({ DATA: 70, SMS_SENT: 10, SMS_RECEIVED: 9, VOICE_OUT: 3, VOICE_IN: 2, MSU: 6 }),
  longSessionShare: 0.12,
  // An hour: the usual time trigger of partial records (3GPP TS 32.251 §5.1.2.1.1, "time limit").
  interimMs: 3_600_000,
  // About one a month per SIM at 2 events an hour.
  firmwareShare: 0.001,
  roamingShare: 0.2,
  apn: 'internet'
})

/** A mobile network as usage records name it (docs/usage.md: visitedNetwork, visitedCountry, MCC, MNC). */
export interface Network { name: string, country: string, mcc: string, mnc: string }

/** The SIMs' home network: the simulator's ICCIDs are French (89 33, simulator/devices/identity.ts). */
export const HOME_NETWORK: Readonly<Network> = Object.freeze({ name: 'Orange F', country: 'FR', mcc: '208', mnc: '01' })

/** Networks a roaming SIM may be attached to. */
export const VISITED_NETWORKS: readonly Network[] = Object.freeze([
  { name: 'Telekom.de', country: 'DE', mcc: '262', mnc: '01' },
  { name: 'vodafone IT', country: 'IT', mcc: '222', mnc: '10' },
  { name: 'Movistar', country: 'ES', mcc: '214', mnc: '07' },
  { name: 'Proximus', country: 'BE', mcc: '206', mnc: '01' },
  { name: 'Swisscom', country: 'CH', mcc: '228', mnc: '01' }
])

/** Radio access technologies (3GPP TS 29.274 §8.17, RAT Type), with the share of SIMs that use each. */
export const RAT_TYPES: Readonly<Record<string, number>> = Object.freeze({ EUTRAN: 50, 'LTE-M': 20, 'EUTRAN-NB-IoT': 10, UTRAN: 12, GERAN: 8 })

/**
 * Peers of SMS and calls. The numbers are in the ranges ARCEP keeps for fiction (+33 6 39 98 and +33 1 99 00), so
 * no real subscriber is named: the platform's SMS numbers, and the alarm centres the gateways call or are called by.
 */
export const SMS_PEERS: readonly string[] = Object.freeze(['+33639980001', '+33639980002', '+33639980003'])
export const VOICE_PEERS: readonly string[] = Object.freeze(['+33199000101', '+33199000102'])
