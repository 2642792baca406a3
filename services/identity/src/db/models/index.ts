import { ApiKeyModel } from './api-key.model';
import { MerchantModel } from './merchant.model';
import { ProjectModel } from './project.model';

export { ApiKeyModel, MerchantModel, ProjectModel };
export const identityModels = [MerchantModel, ProjectModel, ApiKeyModel];
