import { postalAddressMessage, sellerMessage, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import { identityV1 } from '@billing/proto';
import type { ApiKeyModel, MerchantModel, ProjectModel } from '../db/models';
import type { IdentityDeps } from '../identity-deps';
import { sellerDataOf } from '../events/merchant.events';
import type { IssuedApiKey } from '../provisioning/issue-api-key';
import { createApiKey } from '../usecases/api-keys/create-api-key.usecase';
import { listApiKeys } from '../usecases/api-keys/list-api-keys.usecase';
import { revokeApiKey } from '../usecases/api-keys/revoke-api-key.usecase';
import { setApiKeyActive } from '../usecases/api-keys/set-api-key-active.usecase';
import { verifyApiKey } from '../usecases/api-keys/verify-api-key.usecase';
import { deactivateMerchant } from '../usecases/merchants/deactivate-merchant.usecase';
import { getMerchant } from '../usecases/merchants/get-merchant.usecase';
import { registerMerchant } from '../usecases/merchants/register-merchant.usecase';
import { updateMerchant } from '../usecases/merchants/update-merchant.usecase';
import { createProject } from '../usecases/projects/create-project.usecase';
import { getProject } from '../usecases/projects/get-project.usecase';
import { getProjectSeller } from '../usecases/projects/get-project-seller.usecase';
import { listProjects } from '../usecases/projects/list-projects.usecase';
import { login } from '../usecases/sessions/login.usecase';
import { verifyAccessToken } from '../usecases/sessions/verify-access-token.usecase';

const toMerchant = (m: MerchantModel): identityV1.Merchant => ({
  id: m.id,
  email: m.email,
  businessName: m.businessName,
  isActive: m.isActive,
  isVerified: m.isVerified,
  createdAt: m.createdAt,
  legalName: m.legalName ?? undefined,
  address: m.address ? postalAddressMessage(m.address) : undefined,
  taxId: m.taxId ?? undefined,
  supportEmail: m.supportEmail ?? undefined,
  invoiceFooter: m.invoiceFooter ?? undefined,
});

const toProject = (p: ProjectModel): identityV1.Project => ({
  id: p.id,
  merchantId: p.merchantId,
  name: p.name,
  createdAt: p.createdAt,
});

const toApiKey = (k: ApiKeyModel, secret = ''): identityV1.ApiKey => ({
  id: k.id,
  projectId: k.projectId,
  name: k.name,
  key: secret,
  keyPrefix: k.keyPrefix,
  last4: k.last4,
  isLive: k.isLive,
  isActive: k.isActive,
  isRevoked: k.revokedAt !== null,
  lastUsedAt: k.lastUsedAt ?? undefined,
  createdAt: k.createdAt,
});

const toIssuedKey = (issued: IssuedApiKey) => toApiKey(issued.model, issued.key);

/** Thin: proto request -> use case -> proto response. */
export function identityHandlers(deps: IdentityDeps, logger: Logger): identityV1.IdentityServiceServer {
  const handlers: UnaryHandlers<identityV1.IdentityServiceServer> = {
    async registerMerchant(req) {
      const r = await registerMerchant(deps, {
        email: req.email,
        businessName: req.businessName,
        password: req.password,
      });
      return {
        merchant: toMerchant(r.merchant),
        accessToken: r.accessToken,
        project: toProject(r.project),
        apiKeys: r.apiKeys.map(toIssuedKey),
      };
    },
    async login(req) {
      return { accessToken: await login(deps, req) };
    },
    async verifyAccessToken(req) {
      return { merchant: toMerchant(await verifyAccessToken(deps, req.accessToken)) };
    },
    async verifyApiKey(req) {
      const p = await verifyApiKey(deps, req.key);
      return { keyId: p.keyId, projectId: p.projectId, merchantId: p.merchantId, livemode: p.livemode };
    },
    async getMerchant(req) {
      return { merchant: toMerchant(await getMerchant(deps, req.merchantId)) };
    },
    async updateMerchant(req) {
      const merchant = await updateMerchant(deps, req.merchantId, {
        businessName: req.businessName,
        password: req.password,
        currentPassword: req.currentPassword,
        seller: {
          legalName: req.legalName,
          address: req.address && { ...req.address, postal_code: req.address.postalCode },
          taxId: req.taxId,
          supportEmail: req.supportEmail,
          invoiceFooter: req.invoiceFooter,
          clearedFields: req.clearedFields,
        },
      });
      return { merchant: toMerchant(merchant) };
    },
    async deactivateMerchant(req) {
      await deactivateMerchant(deps, req.merchantId);
      return {};
    },
    async createProject(req) {
      const created = await createProject(deps, req.merchantId, req.name);
      return { project: toProject(created.project), apiKeys: created.apiKeys.map(toIssuedKey) };
    },
    async listProjects(req) {
      return { projects: (await listProjects(deps, req.merchantId)).map(toProject) };
    },
    async getProject(req) {
      return { project: toProject(await getProject(deps, req.merchantId, req.projectId)) };
    },
    async getProjectSeller(req) {
      const merchant = await getProjectSeller(deps, req.projectId);
      return { merchantId: merchant.id, seller: sellerMessage(sellerDataOf(merchant)), updatedAt: merchant.updatedAt };
    },
    async createApiKey(req) {
      const issued = await createApiKey(deps, {
        merchantId: req.merchantId,
        projectId: req.projectId,
        name: req.name,
        isLive: req.isLive,
      });
      return { apiKey: toIssuedKey(issued) };
    },
    async listApiKeys(req) {
      return { apiKeys: (await listApiKeys(deps, req.merchantId, req.projectId || undefined)).map((k) => toApiKey(k)) };
    },
    async revokeApiKey(req) {
      return { apiKey: toApiKey(await revokeApiKey(deps, req.merchantId, req.apiKeyId)) };
    },
    async setApiKeyActive(req) {
      return { apiKey: toApiKey(await setApiKeyActive(deps, req.merchantId, req.apiKeyId, req.isActive)) };
    },
  };
  return unaryService(handlers, logger);
}
