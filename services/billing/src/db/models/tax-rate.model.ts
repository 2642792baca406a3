import Decimal from 'decimal.js';
import { Column, DataType, Table } from 'sequelize-typescript';
import { ProjectScopedModel } from '@billing/platform';

/** A tax rate of a project and mode (docs/api-behaviour.md §21, migration 0021). */
@Table({ tableName: 'tax_rates' })
export class TaxRateModel extends ProjectScopedModel {
  @Column(DataType.TEXT)
  displayName!: string;

  /** numeric(6,4): pg returns "7.5000"; the getter gives the canonical text ("7.5"). Never changes. */
  @Column({
    type: DataType.DECIMAL(6, 4),
    get(this: TaxRateModel) {
      const raw: unknown = this.getDataValue('percentage');
      return raw === null || raw === undefined ? raw : new Decimal(String(raw)).toString();
    },
  })
  percentage!: string;

  /** Whether the price already holds the tax. Never changes. */
  @Column(DataType.BOOLEAN)
  inclusive!: boolean;

  /** ISO 3166-1 alpha-2, upper case. */
  @Column(DataType.CHAR(2))
  country!: string | null;

  @Column(DataType.TEXT)
  jurisdiction!: string | null;

  @Column(DataType.TEXT)
  description!: string | null;

  /** An inactive rate can't be newly attached; where it is attached it keeps applying. */
  @Column(DataType.BOOLEAN)
  isActive!: boolean;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
