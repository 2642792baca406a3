import type { Transaction } from 'sequelize';
import { ProjectModel } from '../models';

export class ProjectRepository {
  create(project: { id: string; merchantId: string; name: string; createdAt: Date }, transaction: Transaction) {
    return ProjectModel.create(project, { transaction });
  }

  findById(id: string): Promise<ProjectModel | null> {
    return ProjectModel.findByPk(id);
  }

  /** The ids of every project of the merchant, oldest first, as the transaction sees them. */
  async idsOfMerchant(merchantId: string, transaction: Transaction): Promise<string[]> {
    const projects = await ProjectModel.findAll({
      attributes: ['id'],
      where: { merchantId },
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
      transaction,
    });
    return projects.map((project) => project.id);
  }

  listForMerchant(merchantId: string): Promise<ProjectModel[]> {
    return ProjectModel.findAll({
      where: { merchantId },
      order: [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
    });
  }
}
