#!/bin/sh
# Writes what compose needs besides the image (docs/deployment.md), into deploy/ or the folder
# given, once: an existing secret is kept, because WEBHOOK_SECRETS_KEY encrypts the webhook
# secrets stored in the pgdata volume (a new key could not read them) and DOCUMENT_LINKS_KEY
# signs the invoice and credit-note links already sent (PORTAL_LINKS_KEY the portal entry links
# of customer emails); a secret .env lacks (one a newer version
# of the platform needs) is added.
#   .env          JWT_SECRET, SANDBOX_SECRET_KEY, WEBHOOK_SECRETS_KEY, DOCUMENT_LINKS_KEY,
#                 PORTAL_LINKS_KEY
#   tls/<process> ca.crt, tls.crt, tls.key: gRPC mutual TLS, a certificate per process whose CN
#                 and DNS name are its compose service name, from a CA made here (its key is
#                 thrown away; remove tls/ and run again for new ones)
set -eu
dir="${1:-$(dirname "$0")}"
processes="gateway identity catalog billing policy notification documents portal analytics"

secret() {
  if grep -qs "^$1=" "$dir/.env"; then return; fi
  (
    umask 077
    # On a line of its own, should a hand-edited .env not end with a newline.
    if [ -s "$dir/.env" ] && [ -n "$(tail -c 1 "$dir/.env")" ]; then echo >>"$dir/.env"; fi
    echo "$1=$2" >>"$dir/.env"
  )
  echo "wrote $1 to $dir/.env" >&2
}
secret JWT_SECRET "$(openssl rand -hex 32)"
secret SANDBOX_SECRET_KEY "sk_test_$(openssl rand -hex 24)"
secret WEBHOOK_SECRETS_KEY "$(openssl rand -base64 32)"
secret DOCUMENT_LINKS_KEY "$(openssl rand -hex 32)"
secret PORTAL_LINKS_KEY "$(openssl rand -hex 32)"

if [ -e "$dir/tls" ]; then
  for process in $processes; do
    # The CA's key is gone, so a process added since cannot get a certificate from it.
    if [ ! -e "$dir/tls/$process" ]; then
      echo "$dir/tls has no certificate for $process: remove $dir/tls and run again for a new set" >&2
      exit 1
    fi
  done
  echo "$dir/tls exists; keeping it" >&2
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
# shellcheck disable=SC2086 # $ec is several options
openssl req -x509 $ec -keyout "$work/ca.key" -out "$work/ca.crt" -days 3650 -subj /CN=billing-platform-grpc-ca 2>/dev/null
for process in $processes; do
  mkdir -p "$dir/tls/$process"
  printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=digitalSignature\n' "$process" >"$work/ext"
  # shellcheck disable=SC2086
  openssl req -new $ec -keyout "$dir/tls/$process/tls.key" -out "$work/$process.csr" -subj "/CN=$process" 2>/dev/null
  openssl x509 -req -in "$work/$process.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -days 825 -extfile "$work/ext" -out "$dir/tls/$process/tls.crt" 2>/dev/null
  cp "$work/ca.crt" "$dir/tls/$process/ca.crt"
  # The containers run as uid 1000, which need not be yours: readable by all, on this machine only.
  chmod 0644 "$dir/tls/$process/"*
done
echo "wrote $dir/tls" >&2
