import { DataType, type Model } from 'sequelize-typescript';
import type { ModelAttributeColumnOptions } from 'sequelize';

/**
 * A BIGINT column of minor units. pg returns BIGINT as text (it may exceed 2^53); the amounts
 * billing stores are safe integers, so the getter hands the code a number (null stays null).
 */
export function minorUnits(attribute: string): Partial<ModelAttributeColumnOptions> {
  return {
    type: DataType.BIGINT,
    get(this: Model) {
      const raw: unknown = this.getDataValue(attribute);
      return raw === null || raw === undefined ? raw : Number(raw);
    },
  };
}
