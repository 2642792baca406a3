import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { ProjectScopedModel } from '@billing/platform';
import type { DeliveryStatus } from '../../domain/delivery-status';

/** Written and claimed by DeliveryRepository's SQL; read through this model for the logs. */
@Table({ tableName: 'deliveries', timestamps: false })
export class DeliveryModel extends ProjectScopedModel {
  @Column(DataType.UUID)
  eventId!: string;

  @Column(DataType.UUID)
  webhookId!: string;

  @Column(DataType.TEXT)
  event!: string;

  /** The exact bytes every attempt sends. */
  @Column(DataType.TEXT)
  body!: string;

  @Column(DataType.TEXT)
  status!: DeliveryStatus;

  @Column(DataType.INTEGER)
  attempts!: number;

  @Column(DataType.DATE)
  nextAttemptAt!: Date | null;

  @Column(DataType.DATE)
  leaseUntil!: Date | null;

  @Column(DataType.INTEGER)
  lastStatusCode!: number | null;

  @Column(DataType.TEXT)
  lastError!: string | null;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  deliveredAt!: Date | null;
}

@Table({ tableName: 'delivery_attempts', timestamps: false })
export class DeliveryAttemptModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  deliveryId!: string;

  @PrimaryKey
  @Column(DataType.INTEGER)
  attempt!: number;

  @Column(DataType.DATE)
  at!: Date;

  @Column(DataType.INTEGER)
  statusCode!: number | null;

  @Column(DataType.INTEGER)
  durationMs!: number;

  @Column(DataType.TEXT)
  error!: string | null;
}
