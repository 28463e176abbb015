/** Undo steps collected while something is built, run newest first; a failing step does not stop the others. */
export class Teardown {
  private readonly steps: { name: string; run: () => Promise<unknown> }[] = [];

  add(name: string, run: () => Promise<unknown>): void {
    this.steps.push({ name, run });
  }

  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      await step.run().catch((error: unknown) => console.error(`stopping ${step.name} failed:`, error instanceof Error ? error.message : error));
    }
  }
}
