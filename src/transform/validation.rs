//! [`ValidationOutputTransformer`]: checks that the output holds the item types required.

use super::{Lifecycle, OutputTransformer};
use crate::error::{Result, TransformError};
use crate::event::{split_event_type, Event, ItemKind, LmOutput};

/// Whether all required types must be present, or any one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValidationMode {
    #[default]
    All,
    Any,
}

impl ValidationMode {
    pub fn name(self) -> &'static str {
        match self {
            ValidationMode::All => "all",
            ValidationMode::Any => "any",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "all" => Some(Self::All),
            "any" => Some(Self::Any),
            _ => None,
        }
    }
}

/// Fails with `VALIDATION_FAILED` when required item types are missing: on `transform` for a
/// whole output, on `finish` for a stream (events pass through meanwhile; an item type counts
/// as present when an event of its base type carried a value: `response` for text).
#[derive(Debug, Clone)]
pub struct ValidationOutputTransformer {
    required: Vec<ItemKind>,
    mode: ValidationMode,
    seen: Kinds,
    lifecycle: Lifecycle,
}

impl ValidationOutputTransformer {
    pub fn new(required: Vec<ItemKind>, mode: ValidationMode) -> Result<Self> {
        Self::check_required(&required)?;
        Ok(Self {
            required,
            mode,
            seen: Kinds::default(),
            lifecycle: Lifecycle::new("ValidationOutputTransformer"),
        })
    }

    /// What `new` checks of the required types: at least one.
    pub(crate) fn check_required(required: &[ItemKind]) -> Result<()> {
        if required.is_empty() {
            return Err(TransformError::option(
                "requiredTypes",
                "name at least one output type to require",
            ));
        }
        Ok(())
    }

    fn check(&self, present: &Kinds) -> Result<()> {
        let has = |k: &ItemKind| present.has(*k);
        let ok = match self.mode {
            ValidationMode::All => self.required.iter().all(has),
            ValidationMode::Any => self.required.iter().any(has),
        };
        if ok {
            return Ok(());
        }
        let names = |it: &mut dyn Iterator<Item = &str>| it.collect::<Vec<_>>().join(", ");
        Err(TransformError::ValidationFailed {
            mode: self.mode.name(),
            required: names(&mut self.required.iter().map(|k| k.name())),
            found: names(&mut present.names()),
        })
    }
}

/// The item kinds seen, named in alphabetical order (a set of three flags: a `BTreeSet` would
/// link its tree code into the streaming module for three values).
#[derive(Debug, Clone, Copy, Default)]
struct Kinds(u8);

impl Kinds {
    /// The kinds by name, alphabetically.
    const BY_NAME: [ItemKind; 3] = [ItemKind::Structured, ItemKind::Text, ItemKind::Thinking];

    fn bit(kind: ItemKind) -> u8 {
        match kind {
            ItemKind::Structured => 1,
            ItemKind::Text => 2,
            ItemKind::Thinking => 4,
        }
    }

    fn insert(&mut self, kind: ItemKind) {
        self.0 |= Self::bit(kind);
    }

    fn has(&self, kind: ItemKind) -> bool {
        self.0 & Self::bit(kind) != 0
    }

    fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        Self::BY_NAME
            .into_iter()
            .filter(|k| self.has(*k))
            .map(ItemKind::name)
    }
}

impl OutputTransformer for ValidationOutputTransformer {
    fn transform(&mut self, output: LmOutput) -> Result<LmOutput> {
        let mut present = Kinds::default();
        for item in &output.outputs {
            present.insert(item.kind());
        }
        self.check(&present)?;
        Ok(output)
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        self.lifecycle.check()?;
        let (base, _) = split_event_type(&event.kind);
        if let Some(kind) = ItemKind::ALL.into_iter().find(|k| k.event_type() == base) {
            self.seen.insert(kind);
        }
        Ok(vec![event])
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        self.lifecycle.finish()?;
        self.check(&self.seen)?;
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::OutputItem;

    #[test]
    fn all_and_any() {
        let out = LmOutput::from_text("hi");
        let both = vec![ItemKind::Text, ItemKind::Structured];
        let err = ValidationOutputTransformer::new(both.clone(), ValidationMode::All)
            .unwrap()
            .transform(out.clone())
            .unwrap_err();
        assert_eq!(err.code(), "VALIDATION_FAILED");
        assert!(err.to_string().contains("found [text]"), "{err}");
        assert!(ValidationOutputTransformer::new(both, ValidationMode::Any)
            .unwrap()
            .transform(out)
            .is_ok());
        let thought = LmOutput {
            outputs: vec![OutputItem::Thinking("x".into())],
            ..Default::default()
        };
        assert!(
            ValidationOutputTransformer::new(vec![ItemKind::Thinking], ValidationMode::All)
                .unwrap()
                .transform(thought)
                .is_ok()
        );
    }

    #[test]
    fn found_types_are_named_alphabetically() {
        let out = LmOutput {
            outputs: vec![
                OutputItem::Thinking("x".into()),
                OutputItem::Text("y".into()),
                OutputItem::Structured(serde_json::json!({})),
                OutputItem::Text("z".into()),
            ],
            ..Default::default()
        };
        let err = ValidationOutputTransformer::new(vec![ItemKind::Text], ValidationMode::All)
            .unwrap()
            .transform(LmOutput::default())
            .unwrap_err();
        assert!(err.to_string().contains("found []"), "{err}");
        let mut v =
            ValidationOutputTransformer::new(vec![ItemKind::Text], ValidationMode::Any).unwrap();
        assert!(v.transform(out.clone()).is_ok());
        let mut v = ValidationOutputTransformer::new(
            vec![ItemKind::Text, ItemKind::Thinking],
            ValidationMode::All,
        )
        .unwrap();
        let mut kinds = Kinds::default();
        for item in &out.outputs {
            kinds.insert(item.kind());
        }
        assert_eq!(
            kinds.names().collect::<Vec<_>>(),
            ["structured", "text", "thinking"]
        );
        v.push(Event::text("thinking_start", None, "")).unwrap();
        v.push(Event::json("structured", None, serde_json::json!(1)))
            .unwrap();
        let err = v.finish().unwrap_err();
        assert!(
            err.to_string().contains("found [structured, thinking]"),
            "{err}"
        );
    }

    #[test]
    fn streams_are_checked_at_finish() {
        let mut v = ValidationOutputTransformer::new(vec![ItemKind::Thinking], ValidationMode::All)
            .unwrap();
        v.push(Event::response("answer")).unwrap();
        assert_eq!(v.finish().unwrap_err().code(), "VALIDATION_FAILED");
        let mut v = ValidationOutputTransformer::new(vec![ItemKind::Thinking], ValidationMode::All)
            .unwrap();
        v.push(Event::text("thinking", None, "hmm")).unwrap();
        assert!(v.finish().unwrap().is_empty());
    }
}
