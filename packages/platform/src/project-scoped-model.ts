import { Column, DataType, Model, PrimaryKey } from 'sequelize-typescript';

/**
 * The columns every project-scoped row carries: a UUID primary key, the project it belongs to and
 * its mode (live or test). A model extends this class and declares only its own columns;
 * sequelize-typescript hands the decorated attributes below to each subclass, so the subclass's
 * table still has `id`, `project_id` and `livemode` exactly as its migrations create them.
 * No `@Table` here and never registered: it has no table of its own.
 */
export abstract class ProjectScopedModel extends Model {
  @PrimaryKey
  @Column(DataType.UUID)
  override id!: string;

  @Column(DataType.UUID)
  projectId!: string;

  @Column(DataType.BOOLEAN)
  livemode!: boolean;
}
