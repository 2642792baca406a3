import { AutoIncrement, Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { bigintColumn } from '@billing/platform';
import type { CardBehavior } from '../../domain/ledger';

/** A saved, reusable card; `behavior` decides how its later charges end. */
@Table({ tableName: 'authorizations' })
export class AuthorizationModel extends Model {
  @PrimaryKey
  @AutoIncrement
  @Column(bigintColumn('id'))
  override id!: number;

  @Column(DataType.TEXT)
  authorizationCode!: string;

  @Column(DataType.TEXT)
  email!: string;

  @Column(DataType.TEXT)
  customerCode!: string;

  @Column(DataType.CHAR(4))
  last4!: string;

  @Column(DataType.TEXT)
  brand!: string;

  @Column(DataType.TEXT)
  expMonth!: string;

  @Column(DataType.TEXT)
  expYear!: string;

  @Column(DataType.TEXT)
  behavior!: CardBehavior;

  @Column(DataType.DATE)
  override createdAt!: Date;
}

/** The columns as plain data: what a raw query reads back without building a model instance. */
export type AuthorizationRow = Pick<
  AuthorizationModel,
  | 'id'
  | 'authorizationCode'
  | 'email'
  | 'customerCode'
  | 'last4'
  | 'brand'
  | 'expMonth'
  | 'expYear'
  | 'behavior'
  | 'createdAt'
>;
