import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

@Table({ tableName: 'customers' })
export class CustomerModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.BOOLEAN)
  livemode!: boolean;

  @Column(DataType.TEXT)
  email!: string;

  @Column(DataType.TEXT)
  name!: string | null;

  /** The customer's code at the payment provider (`CUS_...`). */
  @Column(DataType.TEXT)
  gatewayCustomerId!: string | null;

  @Column(DataType.JSONB)
  metadata!: Record<string, unknown>;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
