// What every relevance filter shares: `filter` is `evaluate` with only the kept chunks.
import { noMoreArguments } from "../errors.js";

export class RelevanceFilter {
  /** The chunks kept, the caller's own objects, in input order. */
  async filter(args = {}, ...more) {
    noMoreArguments([args, ...more], 1, `${this.constructor.name}.filter`);
    return (await this.evaluate(args)).filter((e) => e.kept).map((e) => e.chunk);
  }
}
