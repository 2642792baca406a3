#!/bin/sh
# Creates the Secret `platform-secrets` that the prod overlay expects, generating the random keys.
#   DATABASE_URL=postgres://billing:…@db.example.internal:5432/postgres \
#     [BILLING_DATABASE_URL=postgres://…@billing-db.example.internal:5432/postgres] \
#     [PAYSTACK_SECRET_KEY=sk_live_…] [SMTP_URL=smtps://user:…@smtp.example.com:465] \
#     k8s/overlays/prod/create-secrets.sh
# Extra arguments go to kubectl: `--dry-run=client -o yaml` prints the Secret instead, for your
# secret manager or `kubeseal`. Every key a process requires at start is here
# (deploy/test/k8s-manifests.test.ts starts each process's configuration on what this creates).
set -eu
: "${DATABASE_URL:?set DATABASE_URL to the PostgreSQL server, e.g. postgres://billing:…@db.example.internal:5432/postgres}"
NAMESPACE="${NAMESPACE:-billing}"

set -- --from-literal=DATABASE_URL="$DATABASE_URL" "$@"
# Optional: a process's own PostgreSQL server (its Deployment reads <SERVICE>_DATABASE_URL first).
for name in $(env | sed -n 's/^\([A-Z][A-Z_]*_DATABASE_URL\)=.*/\1/p'); do
  set -- --from-literal="$name=$(printenv "$name")" "$@"
done
if [ -n "${PAYSTACK_SECRET_KEY:-}" ]; then set -- --from-literal=PAYSTACK_SECRET_KEY="$PAYSTACK_SECRET_KEY" "$@"; fi
# Optional: the SMTP server of customer emails, credentials included (unset = they stay QUEUED).
if [ -n "${SMTP_URL:-}" ]; then set -- --from-literal=SMTP_URL="$SMTP_URL" "$@"; fi

# On a fresh cluster the namespace does not exist yet (the overlay creates it when applied, after
# this script): create it first, unless this is a dry run that only prints the Secret.
case " $* " in
  *" --dry-run"*) ;;
  *) kubectl get namespace "$NAMESPACE" > /dev/null 2>&1 || kubectl create namespace "$NAMESPACE" ;;
esac

exec kubectl --namespace "$NAMESPACE" create secret generic platform-secrets \
  --from-literal=JWT_SECRET="$(openssl rand -hex 32)" \
  --from-literal=DOCUMENT_LINKS_KEY="$(openssl rand -hex 32)" \
  --from-literal=PORTAL_LINKS_KEY="$(openssl rand -hex 32)" \
  --from-literal=SANDBOX_SECRET_KEY="sk_test_$(openssl rand -hex 24)" \
  --from-literal=WEBHOOK_SECRETS_KEY="$(openssl rand -base64 32)" \
  "$@"
