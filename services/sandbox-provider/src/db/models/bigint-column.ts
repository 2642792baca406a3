import { DataType } from 'sequelize-typescript';
import type { Model } from 'sequelize-typescript';

/**
 * A BIGINT column read as a JS number: pg returns BIGINT as text. Every amount and id here stays
 * far below 2^53, and amounts are integer minor units, so the number is exact.
 */
export function bigintColumn(name: string) {
  return {
    type: DataType.BIGINT,
    get(this: Model) {
      const raw = this.getDataValue(name) as string | number | null | undefined;
      return raw === null || raw === undefined ? null : Number(raw);
    },
  };
}
