// The only module that reads the environment (docs/architecture.md#house-rules): parsed once at start,
// validated, frozen and passed down. A bad value stops the start with a message naming the variable. The variables
// are described by area in core/config/; the order below is the order they are checked in.
import { DEFAULT_PASSWORD_HASH_COST } from './security/secrets.js'
import type { AccessConfig } from './config/access.config.js'
import { brokerConfig, checkBrokerTrust, devicePorts, mqttUrl, type DevicesConfig } from './config/devices.config.js'
import type { OperationsConfig } from './config/operations.config.js'
import { checkOffSwitches, portOrOff, tlsConfig, type TlsConfig } from './config/tls.config.js'
import { alertsConfig, type AlertsConfig } from './config/alerts.config.js'
import { artifactStore, level, logFormat, nodeId, origins, roles, type ServiceConfig } from './config/service.config.js'
import { addressList, bool, email, int, optional, str, topicLevel, url, type Env } from './config/values.js'

export { ConfigError } from './config/values.js'
export { ROLES, type Role } from './config/service.config.js'
export { tlsEnabled, type PortOrOff } from './config/tls.config.js'

export interface Config extends ServiceConfig, AccessConfig, DevicesConfig, OperationsConfig, TlsConfig, AlertsConfig {}

/** Reads and validates the configuration. @throws ConfigError naming the first bad variable. */
export function loadConfig (env: Env): Readonly<Config> {
  const config = readVariables(env)
  // Rules between variables, once each is valid on its own.
  checkOffSwitches(config)
  checkBrokerTrust(config)
  return Object.freeze(config)
}

function readVariables (env: Env): Config {
  return {
    HTTP_PORT: portOrOff(env, 'HTTP_PORT', 8080),
    HTTP_HOST: str(env, 'HTTP_HOST', '0.0.0.0'),
    DATA_DIR: str(env, 'DATA_DIR', './data'),
    DATABASE_URL: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    REDIS_URL: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    ARTIFACT_STORE: artifactStore(env),
    LOG_LEVEL: level(env),
    LOG_FORMAT: logFormat(env),
    LOGIN_THROTTLE_FAILURES: int(env, 'LOGIN_THROTTLE_FAILURES', 5, 1, 1_000_000),
    LOGIN_THROTTLE_ACCOUNT_FAILURES: int(env, 'LOGIN_THROTTLE_ACCOUNT_FAILURES', 100, 1, 1_000_000),
    LOGIN_THROTTLE_ADDRESS_FAILURES: int(env, 'LOGIN_THROTTLE_ADDRESS_FAILURES', 20, 1, 1_000_000),
    LOGIN_THROTTLE_BASE_MS: int(env, 'LOGIN_THROTTLE_BASE_MS', 1000, 1, 900_000),
    // Below 2^10 a hash is cheap to guess; above 2^17 it needs more than the 256 MiB verifyPassword allows.
    PASSWORD_HASH_COST: int(env, 'PASSWORD_HASH_COST', DEFAULT_PASSWORD_HASH_COST, 10, 17),
    TOKEN_TTL_S: int(env, 'TOKEN_TTL_S', 3600, 1, 31_536_000),
    REFRESH_TOKEN_TTL_S: int(env, 'REFRESH_TOKEN_TTL_S', 30 * 86_400, 1, 315_360_000),
    RATE_LIMIT_PER_S: int(env, 'RATE_LIMIT_PER_S', 100, 1, 1_000_000_000),
    FLEET_COMPANY_NAME: str(env, 'FLEET_COMPANY_NAME', 'Fleet'),
    FLEET_ADMIN_EMAIL: email(env, 'FLEET_ADMIN_EMAIL', 'admin@fleet.local'),
    FLEET_ADMIN_PASSWORD: optional(env, 'FLEET_ADMIN_PASSWORD'),
    FLEET_CLIENT_ID: str(env, 'FLEET_CLIENT_ID', 'fleet-cli'),
    FLEET_CLIENT_SECRET: optional(env, 'FLEET_CLIENT_SECRET'),
    PUBLIC_URL: url(env, 'PUBLIC_URL', ['http:', 'https:']),
    MQTT_PORT: portOrOff(env, 'MQTT_PORT', 1883),
    ...devicePorts(env),
    M3DA_SERVER_ID: str(env, 'M3DA_SERVER_ID', 'AIRVANTAGE'),
    MQTT_CONNECT_TIMEOUT_MS: int(env, 'MQTT_CONNECT_TIMEOUT_MS', 10_000, 100, 600_000),
    M3DA_LOGIN_TIMEOUT_MS: int(env, 'M3DA_LOGIN_TIMEOUT_MS', 15_000, 100, 600_000),
    UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS: int(env, 'UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS', 50, 1, 1_000_000),
    TRUST_PROXY: addressList(env, 'TRUST_PROXY') ?? [],
    MQTT_PROXY_PROTOCOL: bool(env, 'MQTT_PROXY_PROTOCOL', false),
    M3DA_PROXY_PROTOCOL: bool(env, 'M3DA_PROXY_PROTOCOL', false),
    PROXY_PROTOCOL_TIMEOUT_MS: int(env, 'PROXY_PROTOCOL_TIMEOUT_MS', 5000, 100, 600_000),
    DEVICE_LOGIN_THROTTLE_FAILURES: int(env, 'DEVICE_LOGIN_THROTTLE_FAILURES', 10, 1, 1_000_000),
    DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES: int(env, 'DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES', 50, 1, 1_000_000),
    DEVICE_LOGIN_THROTTLE_BASE_MS: int(env, 'DEVICE_LOGIN_THROTTLE_BASE_MS', 1000, 1, 900_000),
    SPARKPLUG_HOST_ID: topicLevel(env, 'SPARKPLUG_HOST_ID', 'fleet'),
    COMM_PERIOD_S: int(env, 'COMM_PERIOD_S', 3600, 1, 31_536_000),
    DATA_ROLLUPS: bool(env, 'DATA_ROLLUPS', true),
    MSCI_POLL_CONCURRENCY: int(env, 'MSCI_POLL_CONCURRENCY', 64, 1, 10_000),
    MSCI_TIMEOUT_MS: int(env, 'MSCI_TIMEOUT_MS', 5000, 100, 600_000),
    MSCI_ALLOWED_NETWORKS: addressList(env, 'MSCI_ALLOWED_NETWORKS'),
    WORKER_CONCURRENCY: int(env, 'WORKER_CONCURRENCY', 16, 1, 10_000),
    SMTP_URL: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    SMTP_FROM: email(env, 'SMTP_FROM', 'fleet@fleet.local'),
    SMS_GATEWAY_URL: url(env, 'SMS_GATEWAY_URL', ['http:', 'https:']),
    CALLBACK_SECRET: optional(env, 'CALLBACK_SECRET'),
    CALLBACK_ALLOW_PRIVATE: bool(env, 'CALLBACK_ALLOW_PRIVATE', false),
    CALLBACK_RETRY_BASE_MS: int(env, 'CALLBACK_RETRY_BASE_MS', 30_000, 1, 3_600_000),
    APPLICATION_RELEASE_MAX_BYTES: int(env, 'APPLICATION_RELEASE_MAX_BYTES', 512 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
    CORS_ORIGINS: origins(env),
    METRICS_TOKEN: optional(env, 'METRICS_TOKEN'),
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: int(env, 'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', 500, 0, 600_000),
    OVERLOAD_MAX_IN_FLIGHT: int(env, 'OVERLOAD_MAX_IN_FLIGHT', 32, 0, 1_000_000),
    OVERLOAD_MAX_QUEUE_MS: int(env, 'OVERLOAD_MAX_QUEUE_MS', 250, 0, 60_000),
    OVERLOAD_TARGET_MS: int(env, 'OVERLOAD_TARGET_MS', 300, 0, 60_000),
    OVERLOAD_MAX_HEAP_MB: int(env, 'OVERLOAD_MAX_HEAP_MB', 0, 0, 1_000_000),
    OVERLOAD_RETRY_AFTER_S: int(env, 'OVERLOAD_RETRY_AFTER_S', 1, 1, 3600),
    MQTT_URL: mqttUrl(env),
    MQTT_DYNSEC: bool(env, 'MQTT_DYNSEC', true),
    MQTT_DYNSEC_RESYNC_S: int(env, 'MQTT_DYNSEC_RESYNC_S', 3600, 0, 604_800),
    FLEET_NODE_ID: nodeId(env),
    FLEET_ROLES: roles(env),
    ...brokerConfig(env),
    STREAM_MAX_BUFFER_BYTES: int(env, 'STREAM_MAX_BUFFER_BYTES', 1_048_576, 1024, 1_073_741_824),
    STREAM_RECHECK_MS: int(env, 'STREAM_RECHECK_MS', 10_000, 100, 3_600_000),
    DEVICE_RATE_MESSAGES_PER_S: int(env, 'DEVICE_RATE_MESSAGES_PER_S', 100, 0, 1_000_000),
    DEVICE_RATE_BYTES_PER_S: int(env, 'DEVICE_RATE_BYTES_PER_S', 512 * 1024, 0, 1_073_741_824),
    DEVICE_RATE_BURST_S: int(env, 'DEVICE_RATE_BURST_S', 5, 1, 3600),
    DEVICE_RATE_DISCONNECT_AFTER: int(env, 'DEVICE_RATE_DISCONNECT_AFTER', 1000, 0, 1_000_000_000),
    DEVICE_PENDING_MESSAGES: int(env, 'DEVICE_PENDING_MESSAGES', 64, 1, 1_000_000),
    // Below 64 KiB a few ordinary messages would fill it; one message alone is always taken (ingest.service.ts).
    INGEST_BUFFER_BYTES: int(env, 'INGEST_BUFFER_BYTES', 128 * 1024 * 1024, 65_536, 68_719_476_736),
    DATA_RETENTION_DAYS: int(env, 'DATA_RETENTION_DAYS', 0, 0, 36_500),
    ...tlsConfig(env),
    ...alertsConfig(env)
  }
}
