#!/bin/sh
# Starts one process of the platform: the first argument or $SERVICE (default gateway).
set -eu
service="${1:-${SERVICE:-gateway}}"
case "$service" in
  gateway) entry=/app/gateway/dist/main.js ;;
  *[!a-z0-9-]*) echo "invalid service name '$service'" >&2; exit 64 ;;
  *) entry="/app/services/$service/dist/main.js" ;;
esac
if [ ! -f "$entry" ]; then
  echo "unknown service '$service' ($entry not found)" >&2
  exit 64
fi
# exec: node becomes PID 1 and receives SIGTERM itself (every process handles it: drain, exit).
exec node "$entry"
