import { Column, DataType, Table } from 'sequelize-typescript';
import { bigintColumn, ProjectScopedModel, type PostalAddress } from '@billing/platform';
import type { DocumentLocale } from '../../domain/invoice-parties';
import type { TaxExempt } from '../../domain/invoice-totals';

@Table({ tableName: 'customers' })
export class CustomerModel extends ProjectScopedModel {
  @Column(DataType.TEXT)
  email!: string;

  @Column(DataType.TEXT)
  name!: string | null;

  /** The customer's code at the payment provider (`CUS_...`). */
  @Column(DataType.TEXT)
  gatewayCustomerId!: string | null;

  @Column(DataType.JSONB)
  metadata!: Record<string, unknown>;

  /**
   * Credit the merchant owes the customer (minor units, >= 0), used by the customer's next
   * invoices (docs/api-behaviour.md §20). Changed only through CustomerBalanceRepository.change.
   */
  @Column(bigintColumn('balance'))
  balance!: number;

  /** The balance's currency: null until its first change; only invoices in it use it (§20). */
  @Column(DataType.CHAR(3))
  balanceCurrency!: string | null;

  /** NONE (taxed), EXEMPT or REVERSE (reverse charge): docs/api-behaviour.md §21. */
  @Column(DataType.TEXT)
  taxExempt!: TaxExempt;

  /** Buyer details invoices keep (docs/api-behaviour.md §22); null until given. */
  @Column(DataType.JSONB)
  address!: PostalAddress | null;

  @Column(DataType.TEXT)
  taxId!: string | null;

  /** The language of the customer's invoice documents: en (the default) or fr. */
  @Column(DataType.TEXT)
  preferredLocale!: DocumentLocale;

  @Column(DataType.DATE)
  override createdAt!: Date;

  @Column(DataType.DATE)
  override updatedAt!: Date;
}
