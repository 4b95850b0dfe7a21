// The seeds' older names: the same components, with a one-time deprecation warning.
import { LMReferenceFormatter, LMRelevanceFilter } from "./lm.js";
import { deprecated } from "./options.js";
import { SimilarityReferenceFormatter, SimilarityRelevanceFilter } from "./similarity.js";

/** @deprecated use SimilarityRelevanceFilter */
export class SimilarityBasedRelevanceFilter extends SimilarityRelevanceFilter {
  constructor(emInvoker, options) {
    deprecated("SimilarityBasedRelevanceFilter", "SimilarityRelevanceFilter");
    super(emInvoker, options);
  }
}

/** @deprecated use LMRelevanceFilter (takes an LM invoker where the seeds took a request processor) */
export class LMBasedRelevanceFilter extends LMRelevanceFilter {
  constructor(lmInvoker, options) {
    deprecated("LMBasedRelevanceFilter", "LMRelevanceFilter");
    super(lmInvoker, options);
  }
}

/** @deprecated use SimilarityReferenceFormatter */
export class SimilarityBasedReferenceFormatter extends SimilarityReferenceFormatter {
  constructor(emInvoker, options) {
    deprecated("SimilarityBasedReferenceFormatter", "SimilarityReferenceFormatter");
    super(emInvoker, options);
  }
}

/** @deprecated use LMReferenceFormatter */
export class LMBasedReferenceFormatter extends LMReferenceFormatter {
  constructor(lmInvoker, options) {
    deprecated("LMBasedReferenceFormatter", "LMReferenceFormatter");
    super(lmInvoker, options);
  }
}
