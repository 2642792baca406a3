import type { PostalAddress } from '@billing/platform';
import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

@Table({ tableName: 'merchants' })
export class MerchantModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.TEXT)
  email!: string;

  @Column(DataType.TEXT)
  businessName!: string;

  @Column(DataType.TEXT)
  passwordHash!: string;

  @Column(DataType.BOOLEAN)
  isActive!: boolean;

  @Column(DataType.BOOLEAN)
  isVerified!: boolean;

  /** Seller details (docs/api-behaviour.md §22), null until given. */
  @Column(DataType.TEXT)
  legalName!: string | null;

  @Column(DataType.JSONB)
  address!: PostalAddress | null;

  @Column(DataType.TEXT)
  taxId!: string | null;

  @Column(DataType.TEXT)
  supportEmail!: string | null;

  @Column(DataType.TEXT)
  invoiceFooter!: string | null;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
