#!/bin/sh
# Creates the dynamic security file with the service's administrator account on the first start, then runs the broker.
set -eu
FILE=/mosquitto/data/dynamic-security.json
if [ ! -f "$FILE" ]; then
  mosquitto_ctrl dynsec init "$FILE" fleet "$MQTT_ADMIN_PASSWORD"
  chown mosquitto:mosquitto "$FILE" 2>/dev/null || true
fi
exec mosquitto -c /mosquitto/config/mosquitto.conf
