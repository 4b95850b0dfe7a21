//! [`OutputTransformerChain`]: transformers applied in order, as one transformer.

use super::{Lifecycle, OutputTransformer, OutputTransformerConfig};
use crate::error::Result;
use crate::event::{Event, LmOutput};

/// Applies its transformers in order; the events one releases are fed to the next, and
/// finishing finishes each in turn so that held-back events flow all the way through.
pub struct OutputTransformerChain {
    transformers: Vec<Box<dyn OutputTransformer>>,
    lifecycle: Lifecycle,
}

impl OutputTransformerChain {
    pub fn new(transformers: Vec<Box<dyn OutputTransformer>>) -> Self {
        Self {
            transformers,
            lifecycle: Lifecycle::new("OutputTransformerChain"),
        }
    }

    pub fn from_configs(configs: &[OutputTransformerConfig]) -> Result<Self> {
        Ok(Self::new(
            configs
                .iter()
                .map(OutputTransformerConfig::build)
                .collect::<Result<_>>()?,
        ))
    }

    fn feed_from(&mut self, start: usize, mut events: Vec<Event>) -> Result<Vec<Event>> {
        for t in self.transformers.iter_mut().skip(start) {
            let mut next = Vec::with_capacity(events.len());
            for event in events {
                next.extend(t.push(event)?);
            }
            events = next;
        }
        Ok(events)
    }
}

impl OutputTransformer for OutputTransformerChain {
    fn transform(&mut self, output: LmOutput) -> Result<LmOutput> {
        self.transformers
            .iter_mut()
            .try_fold(output, |out, t| t.transform(out))
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        self.lifecycle.check()?;
        self.feed_from(0, vec![event])
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        self.lifecycle.finish()?;
        let mut out = Vec::new();
        for i in 0..self.transformers.len() {
            let Some(t) = self.transformers.get_mut(i) else {
                break;
            };
            let released = t.finish()?;
            out.extend(self.feed_from(i + 1, released)?);
        }
        Ok(out)
    }
}
