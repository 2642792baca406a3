import type { Logger } from '@billing/platform';

/**
 * Catalog's workflows: work that spans catalog and billing as named steps, each beside the
 * compensation that undoes it, in the shape of Medusa's core-flows (its `createStep` is a
 * `WorkflowStep` here, its `createWorkflow` this file's). Layout (docs/decisions.md, "Coupon
 * workflows in catalog"): the runner here, the steps in `steps/` (`*.step.ts`, or `*.steps.ts`
 * for the calls of one service), each workflow in a `*.workflow.ts` beside this file that reads
 * as its steps in order. Steps reach catalog's database through the use cases.
 *
 * Unlike a database transaction, a step that calls another service may fail without telling
 * whether it took effect. So the steps before a failed one are compensated only when that step
 * says its failure changed nothing (`changedNothing`); otherwise they stay, for a retry with the
 * same idempotency key to find.
 */

/** What a run of a workflow carries to its steps. */
export interface WorkflowContext<Deps> {
  deps: Deps;
  /** The request's X-Request-Id: on every log line of the run. */
  requestId: string;
  /** When the caller stops waiting: the steps' own gRPC calls end then too (absent: their default). */
  deadline?: Date;
  logger: Logger;
}

/**
 * What a step answers (Medusa's StepResponse): its output, and what its compensation needs to
 * undo this very run of it. Without `compensateInput` this run has nothing to undo (it changed
 * nothing, or what it found was made by an earlier request).
 */
export interface StepResponse<Output, CompensateInput> {
  output: Output;
  compensateInput?: CompensateInput;
}

export interface StepCompensation<CompensateInput, Deps> {
  undo(input: CompensateInput, context: WorkflowContext<Deps>): Promise<void>;
  /**
   * Logged as an error, with `logFields(input)`, the workflow, the step and the request id, when
   * `undo` fails: the failed step's error is still the answer, and support finishes the undo.
   */
  failureMessage: string;
  logFields(input: CompensateInput): Record<string, unknown>;
}

/** One step (Medusa's createStep): what it does, and beside it what undoes it. */
export interface WorkflowStep<Input, Output, CompensateInput, Deps> {
  /** Names the step in logs. */
  name: string;
  invoke(input: Input, context: WorkflowContext<Deps>): Promise<StepResponse<Output, CompensateInput>>;
  /** Absent: the step changes nothing (a read) or nothing can undo it. */
  compensation?: StepCompensation<CompensateInput, Deps>;
  /** Whether this step's failure left nothing done; absent, every failure leaves the outcome unknown. */
  changedNothing?(err: unknown): boolean;
}

/** One run of a workflow: runs steps in order and remembers how to undo each. */
export class WorkflowRun<Deps> {
  /** Most recent first. */
  private readonly undos: (() => Promise<void>)[] = [];

  constructor(
    readonly workflow: string,
    private readonly context: WorkflowContext<Deps>,
  ) {}

  /**
   * Runs `step`. When it fails having changed nothing, the steps before it are compensated, most
   * recent first, before its error is thrown; any other failure is thrown as it is.
   */
  async step<Input, Output, CompensateInput>(
    step: WorkflowStep<Input, Output, CompensateInput, Deps>,
    input: Input,
  ): Promise<Output> {
    let response: StepResponse<Output, CompensateInput>;
    try {
      response = await step.invoke(input, this.context);
    } catch (err) {
      if (step.changedNothing?.(err)) await this.compensate();
      throw err;
    }
    const { compensation } = step;
    const { compensateInput } = response;
    if (compensation && compensateInput !== undefined) {
      this.undos.unshift(() => this.undo(step.name, compensation, compensateInput));
    }
    return response.output;
  }

  private async compensate(): Promise<void> {
    for (const undo of this.undos.splice(0)) await undo();
  }

  /** Never throws: the step that failed has the answer; an undo that failed is logged for support. */
  private async undo<CompensateInput>(
    step: string,
    compensation: StepCompensation<CompensateInput, Deps>,
    input: CompensateInput,
  ): Promise<void> {
    try {
      await compensation.undo(input, this.context);
    } catch (err) {
      this.context.logger.error(
        {
          err,
          workflow: this.workflow,
          step,
          request_id: this.context.requestId,
          ...compensation.logFields(input),
        },
        compensation.failureMessage,
      );
    }
  }
}

/** Medusa's createWorkflow: a named function of its input whose body runs steps through `run`. */
export function createWorkflow<Input, Output, Deps>(
  name: string,
  body: (input: Input, run: WorkflowRun<Deps>) => Promise<Output>,
): (context: WorkflowContext<Deps>, input: Input) => Promise<Output> {
  return (context, input) => body(input, new WorkflowRun(name, context));
}
