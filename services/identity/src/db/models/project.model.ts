import { Column, DataType, Model, PrimaryKey, Table } from 'sequelize-typescript';

@Table({ tableName: 'projects' })
export class ProjectModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  merchantId!: string;

  @Column(DataType.TEXT)
  name!: string;

  @Column(DataType.DATE)
  override createdAt!: Date;
}
