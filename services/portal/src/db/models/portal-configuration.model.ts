import { Column, DataType, Table } from 'sequelize-typescript';
import { ProjectScopedModel } from '@billing/platform';

/** The portal configuration of one project and mode (docs/api-behaviour.md §24). */
@Table({ tableName: 'portal_configurations' })
export class PortalConfigurationModel extends ProjectScopedModel {
  @Column(DataType.TEXT)
  cancellation!: string;

  @Column(DataType.BOOLEAN)
  planChangeEnabled!: boolean;

  @Column(DataType.ARRAY(DataType.UUID))
  planChangePlanIds!: string[];

  @Column(DataType.TEXT)
  planChangeProration!: string;

  @Column(DataType.BOOLEAN)
  paymentMethodUpdate!: boolean;

  @Column(DataType.BOOLEAN)
  billingDetailsUpdate!: boolean;

  @Column(DataType.TEXT)
  headline!: string | null;

  @Column(DataType.TEXT)
  returnUrlDefault!: string | null;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
