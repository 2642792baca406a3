import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

@Table({ tableName: 'api_keys' })
export class ApiKeyModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.UUID)
  merchantId!: string;

  @Column(DataType.TEXT)
  name!: string;

  /** SHA-256 of the full key; the key itself is never stored. */
  @Column(DataType.CHAR(64))
  keyHash!: string;

  @Column(DataType.TEXT)
  keyPrefix!: string;

  @Column(DataType.CHAR(4))
  last4!: string;

  @Column(DataType.BOOLEAN)
  isLive!: boolean;

  @Column(DataType.BOOLEAN)
  isActive!: boolean;

  @Column(DataType.DATE)
  revokedAt!: Date | null;

  @Column(DataType.DATE)
  lastUsedAt!: Date | null;

  @Column(DataType.DATE)
  override createdAt!: Date;
}
