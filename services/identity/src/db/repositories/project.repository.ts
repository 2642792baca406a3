import type { Transaction } from 'sequelize';
import { ProjectModel } from '../models';

export class ProjectRepository {
  create(project: { id: string; merchantId: string; name: string; createdAt: Date }, transaction: Transaction) {
    return ProjectModel.create(project, { transaction });
  }

  findById(id: string): Promise<ProjectModel | null> {
    return ProjectModel.findByPk(id);
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
