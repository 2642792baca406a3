#!/usr/bin/env bash
# Creates the Secrets the prod overlay expects, one per process holding only what that process
# reads (docs/deployment.md, "Secrets"), generating the random keys:
#   DATABASE_URL=postgres://billing:…@db.example.internal:5432/postgres \
#     [BILLING_DATABASE_URL=postgres://…@billing-db.example.internal:5432/postgres] \
#     [PAYSTACK_SECRET_KEY=sk_live_…] [SMTP_URL=smtps://user:…@smtp.example.com:465] \
#     [ANALYTICS_DATABASE_DIRECT_URL=postgres://…@db.example.internal:5432/postgres] \
#     k8s/overlays/prod/create-secrets.sh
# Extra arguments go to kubectl: `--dry-run=client -o yaml` prints the Secrets instead (one YAML
# stream), for your secret manager or `kubeseal`. Every key a process requires at start is here
# (deploy/test/k8s-manifests.test.ts starts each process's configuration on what this creates).
set -euo pipefail
: "${DATABASE_URL:?set DATABASE_URL to the PostgreSQL server, e.g. postgres://billing:…@db.example.internal:5432/postgres}"
NAMESPACE="${NAMESPACE:-billing}"
kubectl_args=("$@")
dry_run=false
case " $* " in *" --dry-run"*) dry_run=true ;; esac

# A key two processes share is generated once: notification signs the portal links portal
# verifies; the sandbox's key is both its API key (catalog, billing call it) and its webhook signature.
jwt_secret="$(openssl rand -hex 32)"
document_links_key="$(openssl rand -hex 32)"
portal_links_key="$(openssl rand -hex 32)"
sandbox_secret_key="sk_test_$(openssl rand -hex 24)"
webhook_secrets_key="$(openssl rand -base64 32)"

# Options that add a key only when its variable is set (the live provider key, SMTP).
optional() {
  if [ -n "${!1:-}" ]; then printf '%s\n' "--from-literal=$1=${!1}"; fi
}

# The Secret `<process>-secrets`: DATABASE_URL (the process's own server when
# <PROCESS>_DATABASE_URL is set, e.g. BILLING_DATABASE_URL), then the given keys.
create() {
  local process="$1"
  shift
  local own="$(printf '%s' "$process" | tr 'a-z-' 'A-Z_')_DATABASE_URL"
  local literals=("--from-literal=DATABASE_URL=${!own:-$DATABASE_URL}")
  local key
  for key in "$@"; do
    case "$key" in
      --*) literals+=("$key") ;;
      *) literals+=("--from-literal=$key") ;;
    esac
  done
  if $dry_run; then echo '---'; fi
  kubectl --namespace "$NAMESPACE" create secret generic "$process-secrets" "${literals[@]}" "${kubectl_args[@]}"
}

# On a fresh cluster the namespace does not exist yet (the overlay creates it when applied, after
# this script): create it first, unless this is a dry run that only prints the Secrets.
if ! $dry_run; then
  kubectl get namespace "$NAMESPACE" >/dev/null 2>&1 || kubectl create namespace "$NAMESPACE"
fi

mapfile -t paystack < <(optional PAYSTACK_SECRET_KEY)
mapfile -t smtp < <(optional SMTP_URL)
create gateway
create identity "JWT_SECRET=$jwt_secret"
# The provider keys reach only the processes that call a provider or check its webhooks.
create catalog "SANDBOX_SECRET_KEY=$sandbox_secret_key" "${paystack[@]}"
create billing "DOCUMENT_LINKS_KEY=$document_links_key" "SANDBOX_SECRET_KEY=$sandbox_secret_key" "${paystack[@]}"
create policy
create notification "WEBHOOK_SECRETS_KEY=$webhook_secrets_key" "PORTAL_LINKS_KEY=$portal_links_key" "${smtp[@]}"
create portal "PORTAL_LINKS_KEY=$portal_links_key"
# Analytics holds session locks: behind a transaction-mode PgBouncer it needs PostgreSQL itself
# (docs/deployment.md, "PostgreSQL connections").
analytics_direct=()
if [ -n "${ANALYTICS_DATABASE_DIRECT_URL:-}" ]; then
  analytics_direct=("DATABASE_DIRECT_URL=$ANALYTICS_DATABASE_DIRECT_URL")
fi
create analytics "${analytics_direct[@]}"
create sandbox-provider "SANDBOX_SECRET_KEY=$sandbox_secret_key"
