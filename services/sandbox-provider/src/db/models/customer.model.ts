import { AutoIncrement, Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { bigintColumn } from '@billing/platform';

@Table({ tableName: 'customers' })
export class CustomerModel extends Model {
  @PrimaryKey
  @AutoIncrement
  @Column(bigintColumn('id'))
  override id!: number;

  @Column(DataType.TEXT)
  customerCode!: string;

  @Column(DataType.TEXT)
  email!: string;

  @Column(DataType.TEXT)
  firstName!: string | null;

  @Column(DataType.TEXT)
  lastName!: string | null;

  @Column(DataType.DATE)
  override createdAt!: Date;
}

/** The columns as plain data: what a raw query reads back without building a model instance. */
export type CustomerRow = Pick<CustomerModel, 'id' | 'customerCode' | 'email' | 'firstName' | 'lastName' | 'createdAt'>;
