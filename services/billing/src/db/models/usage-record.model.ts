import { Column, DataType, Table } from 'sequelize-typescript';
import { ProjectScopedModel } from '@billing/platform';

@Table({ tableName: 'usage_records' })
export class UsageRecordModel extends ProjectScopedModel {
  @Column(DataType.UUID)
  subscriptionId!: string;

  /** NUMERIC(24,6); pg returns it as text with six fraction digits, canonicalized on the way out. */
  @Column(DataType.DECIMAL(24, 6))
  quantity!: string;

  @Column(DataType.TEXT)
  description!: string | null;

  @Column(DataType.TEXT)
  idempotencyKey!: string | null;

  @Column(DataType.DATE)
  timestamp!: Date;

  @Column(DataType.BOOLEAN)
  billed!: boolean;

  @Column(DataType.DATE)
  billedAt!: Date | null;

  @Column(DataType.UUID)
  invoiceId!: string | null;

  @Column(DataType.DATE)
  override createdAt!: Date;
}
