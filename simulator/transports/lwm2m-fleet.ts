// An LwM2M device of a fleet (`fleet simulate --protocol lwm2m`): the fleet's LwM2M options and the simulated
// device's model, whose restart count, factory settings and installed applications the LwM2M objects reach.
import type { DeviceModel } from '../devices/device-model.js'
import type { DeviceIdentity } from '../devices/identity.js'
import type { SoftwareOptions } from '../devices/software.js'
import { connectLwm2mDevice } from './lwm2m.js'
import type { Lwm2mFleetOptions } from './lwm2m-options.js'
import type { DeviceTransport } from './transport.js'

/** What a transport may reach of its simulated device (only LwM2M's does). */
export interface TransportDevice { model?: DeviceModel, software?: SoftwareOptions, rebootMs?: number }

/** Registers an LwM2M device at `url` (default: the service's ports on this machine). @throws TransportError, DtlsError */
export async function openLwm2mDevice (id: DeviceIdentity, url: string | undefined, o: Lwm2mFleetOptions, device: TransportDevice): Promise<DeviceTransport> {
  if (o.psk === true && id.lwm2mPskHex === undefined) throw new Error('an LwM2M device with DTLS needs its PSK')
  const model = device.model
  return await connectLwm2mDevice({
    url: url ?? (o.psk === true ? 'coaps://127.0.0.1:5684' : 'coap://127.0.0.1:5683'),
    endpointName: id.serialNumber,
    ...(o.version === undefined ? {} : { version: o.version }),
    ...(o.lifetime === undefined ? {} : { lifetime: o.lifetime }),
    queue: o.queue ?? false,
    ...(o.psk === true && id.lwm2mPskHex !== undefined ? { psk: { keyHex: id.lwm2mPskHex } } : {}),
    ...(device.rebootMs === undefined ? {} : { rebootMs: device.rebootMs }),
    ...(device.software === undefined ? {} : { software: device.software }),
    ...(model === undefined ? {} : { applications: model.applications, onReboot: () => { model.reboot() }, onFactoryReset: () => { model.reset() } })
  })
}
