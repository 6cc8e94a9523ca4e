#!/bin/sh
# The cluster's broker (docker-compose.yml): creates the dynamic security file with the service's administrator account
# on the first start, then runs Mosquitto and keeps its device TLS listener in step with the trust bundle the service
# writes (BROKER_CA_FILE; docs/cluster.md "Device certificates with the external broker"). Mosquitto 2 reads a cafile
# only when it starts (a SIGHUP reloads its own certificate, key and crlfile, not the cafile), so a changed bundle
# restarts it: devices reconnect, persistent sessions are kept. A changed crlfile is a SIGHUP only.
# Plain POSIX sh (the image has busybox). Paths come from the configuration; the variables below change the rest.
set -eu
CONF=${MOSQUITTO_CONF:-/mosquitto/config/mosquitto.conf}
BUNDLE=${BROKER_CA_FILE:-/mosquitto/trust/device-cas.pem}
PLACEHOLDER=${BROKER_CA_PLACEHOLDER:-$(dirname "$0")/no-device-ca.pem}
POLL_S=${BROKER_RELOAD_POLL_S:-5}

# The last value of a setting of the configuration ('' when it has none).
setting () { sed -n "s/^$1[[:space:]][[:space:]]*//p" "$CONF" | tail -n 1; }

FILE=$(setting plugin_opt_config_file)
if [ ! -f "$FILE" ]; then
  mosquitto_ctrl dynsec init "$FILE" fleet "$MQTT_ADMIN_PASSWORD"
  chown mosquitto:mosquitto "$FILE" 2>/dev/null || true
fi
# The folder the service writes the bundle in, made the service's (its image's user: node, uid 1000).
if [ -n "${FLEET_UID:-}" ]; then
  mkdir -p "$(dirname "$BUNDLE")"
  chown "$FLEET_UID" "$(dirname "$BUNDLE")"
fi

RUN_CONF=$CONF
CAFILE=$(setting cafile)
CRL=$(setting crlfile)
CERT=$(setting certfile)
if [ -n "$CERT" ] && [ ! -f "$CERT" ]; then
  echo "start.sh: no $CERT: the device TLS listener is left out" >&2
  RUN_CONF=${TMPDIR:-/tmp}/mosquitto-$$.conf
  sed '/^# BEGIN device TLS listener/,/^# END device TLS listener/d' "$CONF" > "$RUN_CONF"
  CAFILE=
  CRL=
fi

# The bundle as Mosquitto can load it: a file without any certificate (nothing trusted yet) would stop it starting, so
# a certificate nobody holds the key of takes its place.
wanted () { if grep -q 'BEGIN CERTIFICATE' "$BUNDLE" 2>/dev/null; then echo "$BUNDLE"; else echo "$PLACEHOLDER"; fi; }
install_bundle () { cp "$(wanted)" "$CAFILE.tmp" && mv "$CAFILE.tmp" "$CAFILE"; }
crl_sum () { if [ -n "$CRL" ] && [ -f "$CRL" ]; then cksum < "$CRL"; fi; }

# Polls the files; tells the main loop below by a signal (USR1: restart, HUP: reload).
watch () {
  last_crl=$(crl_sum)
  while sleep "$POLL_S"; do
    if [ -n "$CAFILE" ] && ! cmp -s "$(wanted)" "$CAFILE"; then
      if install_bundle; then kill -USR1 $$; else echo "start.sh: $CAFILE not written" >&2; fi
    fi
    crl=$(crl_sum)
    if [ "$crl" != "$last_crl" ]; then last_crl=$crl; kill -HUP $$; fi
  done
}

PID=
RESTART=
STOPPING=
trap 'RESTART=1; kill -TERM "$PID" 2>/dev/null || true' USR1
trap 'kill -HUP "$PID" 2>/dev/null || true' HUP
trap 'STOPPING=1; kill -TERM "$PID" 2>/dev/null || true' TERM INT

if [ -n "$CAFILE" ]; then install_bundle; fi
watch &
WATCHER=$!
status=0
while :; do
  mosquitto -c "$RUN_CONF" &
  PID=$!
  if [ -n "$STOPPING" ]; then kill -TERM "$PID"; fi
  # A trapped signal ends a wait early: wait again until Mosquitto has exited.
  while kill -0 "$PID" 2>/dev/null; do status=0; wait "$PID" || status=$?; done
  if [ -z "$RESTART" ] || [ -n "$STOPPING" ]; then break; fi
  RESTART=
  echo "start.sh: the device trust bundle changed: Mosquitto restarted" >&2
done
kill "$WATCHER" 2>/dev/null || true
if [ "$RUN_CONF" != "$CONF" ]; then rm -f "$RUN_CONF"; fi
exit "$status"
