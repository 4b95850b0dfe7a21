// What every relevance filter shares: `filter` is `evaluate` with only the kept chunks.
export class RelevanceFilter {
  /** The chunks kept, the caller's own objects, in input order. */
  async filter(args = {}) {
    return (await this.evaluate(args)).filter((e) => e.kept).map((e) => e.chunk);
  }
}
