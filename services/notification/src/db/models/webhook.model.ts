import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

@Table({ tableName: 'webhooks' })
export class WebhookModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.BOOLEAN)
  livemode!: boolean;

  @Column(DataType.TEXT)
  url!: string;

  /** Catalogue names, or ["*"]. */
  @Column(DataType.ARRAY(DataType.TEXT))
  events!: string[];

  @Column(DataType.TEXT)
  description!: string | null;

  @Column(DataType.BOOLEAN)
  isActive!: boolean;

  /** The signing secret sealed by SecretBox; never leaves the service but at create and rotate. */
  @Column(DataType.TEXT)
  secretSealed!: string;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
