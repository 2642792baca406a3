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

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
