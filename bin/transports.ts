// The device transports the service runs (issue 9: a device protocol is a folder under ingest/ plus one line here).
// The service, readiness, the connected-devices metric and the test stack iterate this list; none names a transport.
import type { TransportFactory } from '../ingest/transport.js'
import { mqttTransport } from '../ingest/mqtt/mqtt.transport.js'
import { restTransport } from '../ingest/rest/rest.transport.js'
import { m3daTransport } from '../ingest/m3da/m3da.transport.js'
import { msciTransport } from '../ingest/msci/msci.transport.js'
import { brokerAuthTransport } from '../ingest/broker-auth/broker-auth.transport.js'
import { sparkplugTransport } from '../ingest/sparkplug/sparkplug.transport.js'

export const transports: readonly TransportFactory[] = [mqttTransport, restTransport, m3daTransport, msciTransport, sparkplugTransport, brokerAuthTransport]
