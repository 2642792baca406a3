import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { Column, DataType, Table, type Sequelize } from 'sequelize-typescript';
import { bigintColumn, createLogger, openDatabase, ProjectScopedModel, type Migration } from '@billing/platform';
import { dropDatabases, TEST_DATABASE_URL, uniqueRunId } from '@billing/testing';

/** Two tables laid out as the services' migrations lay out theirs: id, project_id, livemode first. */
const createTables: Migration = {
  name: '0001-create-widgets-and-gadgets',
  async up({ sql }) {
    await sql(`CREATE TABLE widgets (
      id UUID PRIMARY KEY,
      project_id UUID NOT NULL,
      livemode BOOLEAN NOT NULL,
      name TEXT NOT NULL,
      amount BIGINT NOT NULL,
      refunded_amount BIGINT
    )`);
    await sql(`CREATE TABLE gadgets (
      id UUID PRIMARY KEY,
      project_id UUID NOT NULL,
      livemode BOOLEAN NOT NULL,
      colour TEXT NOT NULL
    )`);
  },
};

@Table({ tableName: 'widgets' })
class WidgetModel extends ProjectScopedModel {
  @Column(DataType.TEXT)
  name!: string;

  @Column(bigintColumn('amount'))
  amount!: number;

  @Column(bigintColumn('refundedAmount'))
  refundedAmount!: number | null;
}

/** A second subclass: the parent's columns are shared, each subclass's own ones are not. */
@Table({ tableName: 'gadgets' })
class GadgetModel extends ProjectScopedModel {
  @Column(DataType.TEXT)
  colour!: string;
}

describe('the shared model columns (real PostgreSQL)', () => {
  const runId = uniqueRunId('modelcols');
  let sequelize: Sequelize;

  beforeAll(async () => {
    sequelize = await openDatabase({
      url: TEST_DATABASE_URL,
      database: `${runId}_db`,
      models: [WidgetModel, GadgetModel],
      migrations: [createTables],
      logger: createLogger('model-columns-test', 'silent'),
      poolMax: 2,
    });
  });
  afterAll(async () => {
    await sequelize?.close();
    await dropDatabases(runId);
  });

  it("a ProjectScopedModel subclass writes and reads id, project_id and livemode in its table's columns", async () => {
    const id = randomUUID();
    const projectId = randomUUID();
    await WidgetModel.create({ id, projectId, livemode: true, name: 'w', amount: 1250 });

    const read = await WidgetModel.findByPk(id);
    expect(read).not.toBeNull();
    expect({ id: read!.id, projectId: read!.projectId, livemode: read!.livemode, name: read!.name }).toEqual({
      id,
      projectId,
      livemode: true,
      name: 'w',
    });
    const [stored] = await sequelize.query<{ id: string; project_id: string; livemode: boolean }>(
      'SELECT id, project_id, livemode FROM widgets WHERE id = $1',
      { bind: [id], type: QueryTypes.SELECT },
    );
    expect(stored).toEqual({ id, project_id: projectId, livemode: true });
    expect(await WidgetModel.count({ where: { projectId, livemode: true } })).toBe(1);
    expect(await WidgetModel.count({ where: { projectId, livemode: false } })).toBe(0);
  });

  it('every subclass gets the same three columns, and none gets the columns of a sibling', async () => {
    const id = randomUUID();
    const projectId = randomUUID();
    await GadgetModel.create({ id, projectId, livemode: false, colour: 'red' });
    const read = await GadgetModel.findOne({ where: { projectId } });
    expect({ id: read!.id, projectId: read!.projectId, livemode: read!.livemode }).toEqual({
      id,
      projectId,
      livemode: false,
    });

    const gadget = GadgetModel.getAttributes();
    const widget = WidgetModel.getAttributes();
    expect(Object.keys(gadget).sort()).toEqual(['colour', 'id', 'livemode', 'projectId']);
    expect(Object.keys(widget).sort()).toEqual(['amount', 'id', 'livemode', 'name', 'projectId', 'refundedAmount']);
    expect(gadget.id.primaryKey).toBe(true);
    expect(widget.id.primaryKey).toBe(true);
    expect(widget.projectId.field).toBe('project_id');
  });

  it('bigintColumn reads a BIGINT as an exact number, and null as null', async () => {
    const id = randomUUID();
    await WidgetModel.create({
      id,
      projectId: randomUUID(),
      livemode: false,
      name: 'largest',
      amount: Number.MAX_SAFE_INTEGER,
      refundedAmount: null,
    });
    const [raw] = await sequelize.query<{ amount: unknown }>('SELECT amount FROM widgets WHERE id = $1', {
      bind: [id],
      type: QueryTypes.SELECT,
    });
    // What the getter is for: pg hands BIGINT back as text.
    expect(raw.amount).toBe(String(Number.MAX_SAFE_INTEGER));

    const read = await WidgetModel.findByPk(id);
    expect(read!.amount).toBe(Number.MAX_SAFE_INTEGER);
    expect(read!.refundedAmount).toBeNull();
    expect(read!.get({ plain: true })).toMatchObject({ amount: Number.MAX_SAFE_INTEGER, refundedAmount: null });

    await read!.update({ refundedAmount: 300 });
    expect((await WidgetModel.findByPk(id))!.refundedAmount).toBe(300);
  });
});
