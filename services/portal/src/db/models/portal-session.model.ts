import { Column, DataType, Table } from 'sequelize-typescript';
import { ProjectScopedModel } from '@billing/platform';

/**
 * One portal session of one customer (docs/api-behaviour.md §24): the URL's token (hashed; used
 * once, before link_expires_at) and the browser session it opened (the cookie's token hashed, its
 * CSRF token, and when it was last used).
 */
@Table({ tableName: 'portal_sessions' })
export class PortalSessionModel extends ProjectScopedModel {
  /** The merchant of the project: billing's calls carry the whole scope. */
  @Column(DataType.UUID)
  merchantId!: string;

  @Column(DataType.UUID)
  customerId!: string;

  @Column(DataType.TEXT)
  returnUrl!: string | null;

  @Column(DataType.TEXT)
  linkTokenHash!: string | null;

  @Column(DataType.DATE)
  linkExpiresAt!: Date;

  @Column(DataType.DATE)
  linkUsedAt!: Date | null;

  @Column(DataType.TEXT)
  browserTokenHash!: string | null;

  @Column(DataType.TEXT)
  csrfToken!: string | null;

  @Column(DataType.DATE)
  lastSeenAt!: Date | null;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
