#!/bin/sh
# Writes the secrets compose needs (docs/deployment.md) to deploy/.env, or to the file given,
# once: an existing file is kept, because WEBHOOK_SECRETS_KEY encrypts the webhook secrets stored
# in the pgdata volume and a new key could not read them.
set -eu
file="${1:-$(dirname "$0")/.env}"
if [ -e "$file" ]; then
  echo "$file exists; keeping it" >&2
  exit 0
fi
umask 077
{
  echo "JWT_SECRET=$(openssl rand -hex 32)"
  echo "SANDBOX_SECRET_KEY=sk_test_$(openssl rand -hex 24)"
  echo "WEBHOOK_SECRETS_KEY=$(openssl rand -base64 32)"
} >"$file"
echo "wrote $file" >&2
