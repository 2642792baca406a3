import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

/** A card the provider lets us charge again (renewals); the code is what a charge names. */
@Table({ tableName: 'payment_authorizations' })
export class PaymentAuthorizationModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  customerId!: string;

  @Column(DataType.TEXT)
  authorizationCode!: string;

  @Column(DataType.TEXT)
  last4!: string | null;

  @Column(DataType.TEXT)
  brand!: string | null;

  @Column(DataType.TEXT)
  expMonth!: string | null;

  @Column(DataType.TEXT)
  expYear!: string | null;

  @Column(DataType.BOOLEAN)
  reusable!: boolean;

  /** The one subscription this card pays; null: the customer's own card (§20). */
  @Column(DataType.UUID)
  subscriptionId!: string | null;

  @Column(DataType.DATE)
  override createdAt!: Date;
}
