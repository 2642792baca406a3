import { Column, DataType, Table } from 'sequelize-typescript';
import { ProjectScopedModel } from '@billing/platform';

@Table({ tableName: 'webhooks' })
export class WebhookModel extends ProjectScopedModel {
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
