//! [`IdentityOutputTransformer`]: passes everything through unchanged.

use super::{Lifecycle, OutputTransformer};
use crate::error::Result;
use crate::event::{Event, LmOutput};

/// Returns outputs and events as they are; the neutral element of a chain.
#[derive(Debug, Clone)]
pub struct IdentityOutputTransformer {
    lifecycle: Lifecycle,
}

impl Default for IdentityOutputTransformer {
    fn default() -> Self {
        Self {
            lifecycle: Lifecycle::new("IdentityOutputTransformer"),
        }
    }
}

impl OutputTransformer for IdentityOutputTransformer {
    fn transform(&mut self, output: LmOutput) -> Result<LmOutput> {
        Ok(output)
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        self.lifecycle.check()?;
        Ok(vec![event])
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        self.lifecycle.finish()?;
        Ok(Vec::new())
    }
}
