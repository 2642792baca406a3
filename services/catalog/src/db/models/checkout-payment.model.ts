import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import type { CheckoutPaymentState } from '../../domain/checkout-session';

/** One provider transaction started from a session's hosted page. */
@Table({ tableName: 'checkout_payments', timestamps: false })
export class CheckoutPaymentModel extends Model {
  @PrimaryKey
  @Column(DataType.TEXT)
  reference!: string;

  @Column(DataType.UUID)
  sessionId!: string;

  @Column(DataType.TEXT)
  state!: CheckoutPaymentState;

  /** Real time the transaction was started. */
  @Column(DataType.DATE)
  startedAt!: Date;

  /** Real time billing was last asked about it (late payments of ended sessions). */
  @Column(DataType.DATE)
  checkedAt!: Date | null;
}
