import { Op, type WhereOptions } from 'sequelize';
import type { Model, ModelStatic } from 'sequelize';
import { DomainError } from './errors';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a record (a 404, never a database error). */
export const isUuid = (value: string): boolean => UUID.test(value);

export interface PageRequest {
  limit?: number;
  startingAfter?: string;
}

/**
 * One page of a list, newest first (created_at, then id, descending). `where` must already
 * hold the tenant scope; the cursor is looked up inside the same list, so a starting_after that
 * names no record of it is a 400 (docs/api-behaviour.md §16.11), not an empty page.
 */
export async function findPage<M extends Model & { id: string; createdAt: Date }>(
  model: ModelStatic<M>,
  where: WhereOptions,
  page: PageRequest,
): Promise<M[]> {
  const limit = Math.min(Math.max(page.limit || DEFAULT_PAGE_LIMIT, 1), MAX_PAGE_LIMIT);
  let scoped = where;
  if (page.startingAfter) {
    const cursor = isUuid(page.startingAfter)
      ? await model.findOne({ where: { ...where, id: page.startingAfter } as WhereOptions })
      : null;
    if (!cursor) throw new DomainError('failed_precondition', 'starting_after does not name an item of this list');
    scoped = {
      ...where,
      [Op.or]: [
        { createdAt: { [Op.lt]: cursor.createdAt } },
        { createdAt: cursor.createdAt, id: { [Op.lt]: cursor.id } },
      ],
    } as WhereOptions;
  }
  return model.findAll({
    where: scoped,
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
    limit,
  });
}
