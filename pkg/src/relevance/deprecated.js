// The seeds' older names: the same components, with a one-time deprecation warning.
import { LMReferenceFormatter, LMRelevanceFilter } from "./lm.js";
import { deprecated } from "./options.js";
import { SimilarityReferenceFormatter, SimilarityRelevanceFilter } from "./similarity.js";

/** @deprecated use SimilarityRelevanceFilter */
export class SimilarityBasedRelevanceFilter extends SimilarityRelevanceFilter {
  constructor(...args) {
    deprecated("SimilarityBasedRelevanceFilter", "SimilarityRelevanceFilter");
    super(...args);
  }
}

/** @deprecated use LMRelevanceFilter (takes an LM invoker where the seeds took a request processor) */
export class LMBasedRelevanceFilter extends LMRelevanceFilter {
  constructor(...args) {
    deprecated("LMBasedRelevanceFilter", "LMRelevanceFilter");
    super(...args);
  }
}

/** @deprecated use SimilarityReferenceFormatter */
export class SimilarityBasedReferenceFormatter extends SimilarityReferenceFormatter {
  constructor(...args) {
    deprecated("SimilarityBasedReferenceFormatter", "SimilarityReferenceFormatter");
    super(...args);
  }
}

/** @deprecated use LMReferenceFormatter */
export class LMBasedReferenceFormatter extends LMReferenceFormatter {
  constructor(...args) {
    deprecated("LMBasedReferenceFormatter", "LMReferenceFormatter");
    super(...args);
  }
}
