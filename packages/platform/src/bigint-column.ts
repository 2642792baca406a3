import { DataType, type Model } from 'sequelize-typescript';
import type { ModelAttributeColumnOptions } from 'sequelize';

/**
 * A BIGINT column read as a JS number: pg returns BIGINT as text (it may exceed 2^53). Every
 * value stored in one (amounts in integer minor units, the sandbox provider's serial ids) stays
 * a safe integer, so the number is exact. Null stays null; an attribute not read stays undefined.
 */
export function bigintColumn(attribute: string): Partial<ModelAttributeColumnOptions> {
  return {
    type: DataType.BIGINT,
    get(this: Model) {
      const raw: unknown = this.getDataValue(attribute);
      return raw === null || raw === undefined ? raw : Number(raw);
    },
  };
}
