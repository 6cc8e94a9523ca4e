// The M3DA security extension (docs/protocols/m3da.md): pure functions for both peers. See README.md.
export { deriveKeys, keysFromMasterKey, type SessionKeys } from './keys.js'
export { computeMac, macAlgorithmOf, verifyMac, isMacAlgorithm, MAC_ALGORITHMS, type MacAlgorithm } from './mac.js'
export { CIPHER_NAMES, isCipherName, encrypt, decrypt, type CipherName, type Decrypted } from './cipher.js'
export { newNonce, NONCE_BYTES } from './nonce.js'
export type { SecurityCipher, InnerContent } from './nested.js'
export { readChallenge, type Challenge, type ChallengeStatus } from './challenge.js'
export {
  openDeviceEnvelope, sealServerEnvelope,
  type DeviceCredentials, type OpenedDeviceEnvelope, type OpenRefusal, type ServerSealParams
} from './server-session.js'
export {
  sealDeviceEnvelope, openServerEnvelope, encodeDeviceChallenge,
  type DeviceSealParams, type ServerEnvelopeParams, type OpenedServerEnvelope
} from './device-session.js'
export {
  isAutoregStart, startServerAutoreg, answerAutoregKey, finishServerAutoreg,
  type AutoregCredentials, type ServerAutoregState, type ServerWaitingKey, type ServerWaitingAck, type ServerAutoregReason
} from './server-autoreg.js'
export {
  startDeviceAutoreg, answerServerSalt, finishDeviceAutoreg,
  type DeviceAutoregState, type DeviceWaitingSalt, type DeviceWaitingKey, type DeviceAutoregReason
} from './device-autoreg.js'
