import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { bigintColumn } from '@billing/platform';

/** UPDATED: the card became the subscription's; NOT_PAID: it did not (failed, abandoned, not reusable). */
export type CardUpdateState = 'STARTED' | 'UPDATED' | 'NOT_PAID';

/** A card update the customer portal started at the provider (docs/api-behaviour.md §20, "Updating the card"). */
@Table({ tableName: 'card_updates', timestamps: false })
export class CardUpdateModel extends Model {
  /** The provider's reference: what its callback names. */
  @PrimaryKey
  @Column(DataType.TEXT)
  reference!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.BOOLEAN)
  livemode!: boolean;

  @Column(DataType.UUID)
  customerId!: string;

  /** The subscription whose card it becomes. */
  @Column(DataType.UUID)
  subscriptionId!: string;

  /** The verification charge the provider was asked for (refunded once the card is saved). */
  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(DataType.CHAR(3))
  currency!: string;

  @Column(DataType.TEXT)
  state!: CardUpdateState;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  checkedAt!: Date;

  @Column(DataType.DATE)
  settledAt!: Date | null;
}
