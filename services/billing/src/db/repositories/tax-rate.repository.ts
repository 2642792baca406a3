import { Op, type Transaction, type WhereOptions } from 'sequelize';
import {
  findInScope,
  findPage,
  isUuid,
  scopeWhere,
  type PageRequest,
  type ProjectScope,
  type RowScope,
} from '@billing/platform';
import type { ValidTaxRate } from '../../domain/tax-rates';
import { TaxRateModel } from '../models';

/** A new rate: its checked fields (validateNewTaxRate), its id and when it was made. */
export interface NewTaxRate extends ValidTaxRate {
  id: string;
  createdAt: Date;
}

/** What PATCH /tax-rates/{id} may change (docs/api-behaviour.md §21): never percentage nor inclusive. */
export type TaxRateChanges = Partial<Pick<TaxRateModel, 'displayName' | 'description' | 'isActive'>> & {
  updatedAt: Date;
};

/** Tax rates of a project and mode (docs/api-behaviour.md §21). */
export class TaxRateRepository {
  create(scope: ProjectScope, rate: NewTaxRate): Promise<TaxRateModel> {
    return TaxRateModel.create({
      ...rate,
      projectId: scope.projectId,
      livemode: scope.livemode,
      isActive: true,
      updatedAt: rate.createdAt,
    });
  }

  /** 404 unknown or of the other mode, 403 another project's (docs/api-behaviour.md §1). */
  get(scope: ProjectScope, id: string): Promise<TaxRateModel> {
    return findInScope(TaxRateModel, scope, id, 'Tax rate');
  }

  /** One page of the scope's rates, newest first. */
  list(scope: ProjectScope, page: PageRequest): Promise<TaxRateModel[]> {
    return findPage(TaxRateModel, scopeWhere(scope), page);
  }

  /** The merchant's edit of a rate's name, description or activity. */
  save(rate: TaxRateModel, changes: TaxRateChanges): Promise<TaxRateModel> {
    return rate.update(changes);
  }

  /**
   * Rates by id, however many, each only within its own project and mode (a batch of renewals
   * spans projects): ids of another project or mode are not found. Malformed ids match nothing.
   */
  async findInScopes(wanted: (RowScope & { ids: string[] })[], transaction?: Transaction): Promise<TaxRateModel[]> {
    const scopes = wanted
      .map((w) => ({ projectId: w.projectId, livemode: w.livemode, id: w.ids.filter(isUuid) }))
      .filter((w) => w.id.length > 0);
    if (scopes.length === 0) return [];
    return TaxRateModel.findAll({ where: { [Op.or]: scopes } as WhereOptions, transaction });
  }
}
