// A bound on work in flight, for the calls one request makes (a decision's questions, a
// relevance component's batches and their questions): at most `limit` tasks run at once, the
// others wait their turn in the order they came. After a task fails, no waiting task starts:
// each is refused with that first failure, which is what the caller gets.
export class Gate {
  #free;
  #waiting = [];
  #failed = false;
  #failure;

  /** `limit`: a whole number ≥ 1 (checked by the core where a caller gives it). */
  constructor(limit) {
    this.#free = limit;
  }

  /** `task()`'s result once a place is free and `task` has run in it. */
  async run(task) {
    if (this.#free > 0) this.#free--;
    else await new Promise((resolve) => this.#waiting.push(resolve));
    try {
      if (this.#failed) throw this.#failure;
      return await task();
    } catch (error) {
      if (!this.#failed) {
        this.#failed = true;
        this.#failure = error;
      }
      throw error;
    } finally {
      // The place passes straight to the next in line (none can take it in between).
      const next = this.#waiting.shift();
      if (next === undefined) this.#free++;
      else next();
    }
  }
}
