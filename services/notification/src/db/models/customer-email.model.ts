import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { ProjectScopedModel } from '@billing/platform';
import type { CustomerEmailStatus } from '../../domain/customer-emails';

/** Written, claimed and recorded by CustomerEmailRepository's SQL; read through this model for the list. */
@Table({ tableName: 'customer_emails', timestamps: false })
export class CustomerEmailModel extends ProjectScopedModel {
  @Column(DataType.UUID)
  eventId!: string;

  @Column(DataType.TEXT)
  type!: string;

  @Column(DataType.UUID)
  customerId!: string;

  @Column(DataType.TEXT)
  toAddress!: string | null;

  @Column(DataType.TEXT)
  subject!: string | null;

  @Column(DataType.TEXT)
  status!: CustomerEmailStatus;

  @Column(DataType.INTEGER)
  attempts!: number;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  sentAt!: Date | null;
}

/** One row per project and mode that set its email settings (docs/api-behaviour.md §24). */
@Table({ tableName: 'email_settings', timestamps: false })
export class EmailSettingsModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  projectId!: string;

  @PrimaryKey
  @Column(DataType.BOOLEAN)
  livemode!: boolean;

  @Column(DataType.BOOLEAN)
  enabled!: boolean;

  @Column(DataType.TEXT)
  fromName!: string | null;

  @Column(DataType.TEXT)
  replyTo!: string | null;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
