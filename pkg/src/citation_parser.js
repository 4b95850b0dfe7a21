// The streaming citation parser: a stage of the core's engine, like the transformers.
import * as core from "../gen/stream/citeflow_stream.js";
import { ready } from "./stream_runtime.js";
import { registerCitationParser, STAGE, StageTransformer } from "./transformers.js";

/**
 * Finds markers in the answer as it streams; emits a `citation` event as each completes.
 * Answer text passes through, except a possible marker prefix, held until it is decided.
 */
export class CitationParser extends StageTransformer {
  #options;

  constructor(options = {}) {
    ready();
    super(core.stageConfig("citations", options));
    this.#options = options;
  }

  fresh() {
    return new CitationParser(this.#options);
  }

  [STAGE]() {
    return [{ type: "citations", kwargs: this.#options }];
  }
}

registerCitationParser((options) => new CitationParser(options));
