//! An incremental reader of the cited-answer JSON (`{segments: [{text, citations: [id]}]}`,
//! see [`super::enforce`]): text in pieces cut anywhere (inside a string, an escape, a
//! surrogate pair or a number), what it says out as soon as it is known: a segment begins,
//! sentence text, a cited id, a segment ends.
//!
//! Every piece of the JSON is checked (a bad token is an error, not skipped), objects and
//! arrays nest at most [`MAX_DEPTH`] deep, and memory stays bounded whatever the input: only
//! a key's first bytes and one number are ever buffered.

use crate::json_escape::short_escape;

/// How deep objects and arrays may nest (serde_json's own limit).
pub const MAX_DEPTH: usize = 128;
/// The longest key or scalar kept: longer ones are checked and cannot match a name or an id.
const MAX_TOKEN: usize = 32;

/// What the JSON says, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentEvent {
    SegmentStart,
    /// Decoded sentence text (consecutive pieces merged).
    Text(String),
    /// A cited id as written: a whole number, or a string of digits; `None` for one too
    /// large for `u64`.
    Cite(Option<u64>),
    SegmentEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Root,
    Segments,
    Segment,
    Text,
    Citations,
    Cite,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frame {
    container: Container,
    role: Role,
    /// The role of the value after the current key (objects).
    next: Role,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    Backslash,
    /// `\u` and the hex digits read so far.
    Unicode {
        digits: u8,
        value: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// A value is expected; `close` when the array may end here instead (`[` just read).
    Value {
        close: bool,
    },
    /// After a value: `,` or the closer.
    After,
    /// A key is expected; `close` when the object may end here instead.
    Key {
        close: bool,
    },
    Colon,
    Str {
        key: bool,
        role: Role,
        escape: Escape,
    },
    Scalar {
        role: Role,
    },
    Done,
}

/// Why the text is not a cited answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentsError(pub String);

/// The reader's state between pieces.
#[derive(Debug, Clone)]
pub struct SegmentsReader {
    stack: Vec<Frame>,
    state: State,
    /// The key being read (its first bytes) or the scalar being read.
    token: String,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
    started: bool,
}

impl Default for SegmentsReader {
    fn default() -> Self {
        Self {
            stack: Vec::new(),
            state: State::Value { close: false },
            token: String::new(),
            high: None,
            started: false,
        }
    }
}

fn error(what: impl Into<String>) -> SegmentsError {
    SegmentsError(what.into())
}

fn push_text(out: &mut Vec<SegmentEvent>, c: char) {
    if let Some(SegmentEvent::Text(t)) = out.last_mut() {
        t.push(c);
    } else {
        out.push(SegmentEvent::Text(c.to_string()));
    }
}

impl SegmentsReader {
    /// Whether the whole answer has been read.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Whether any of the JSON has been read (whitespace aside).
    pub fn has_started(&self) -> bool {
        self.started
    }

    /// Reads a piece; appends what it says to `out`.
    pub fn feed(&mut self, text: &str, out: &mut Vec<SegmentEvent>) -> Result<(), SegmentsError> {
        for c in text.chars() {
            self.char(c, out)?;
        }
        Ok(())
    }

    /// Ends the input: an error unless the answer was complete.
    pub fn finish(&mut self, out: &mut Vec<SegmentEvent>) -> Result<(), SegmentsError> {
        if let State::Scalar { role } = self.state {
            self.end_scalar(role, out)?;
        }
        if self.state == State::Done {
            Ok(())
        } else {
            Err(error(
                "the cited answer ended before its JSON was complete (a cut answer, finish reason \"length\", needs a larger maxTokens)",
            ))
        }
    }

    fn role_in(&self, frame: Option<&Frame>) -> Role {
        match frame {
            None => Role::Root,
            Some(f) if f.container == Container::Array => match f.role {
                Role::Segments => Role::Segment,
                Role::Citations => Role::Cite,
                _ => Role::Other,
            },
            Some(f) => f.next,
        }
    }

    fn char(&mut self, c: char, out: &mut Vec<SegmentEvent>) -> Result<(), SegmentsError> {
        match self.state {
            State::Str { key, role, escape } => return self.string_char(c, key, role, escape, out),
            State::Scalar { role } => {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-') {
                    // Past MAX_TOKEN the rest is not kept: a longer literal still fails, and a
                    // longer run of digits is past u64 either way.
                    if self.token.len() < MAX_TOKEN {
                        self.token.push(c);
                    }
                    return Ok(());
                }
                self.end_scalar(role, out)?;
            }
            _ => {}
        }
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            return Ok(());
        }
        self.started = true;
        match self.state {
            State::Value { close } => {
                if close && c == ']' {
                    return self.close(Container::Array, out);
                }
                let role = self.role_in(self.stack.last());
                self.value(c, role, out)
            }
            State::After => match (c, self.stack.last().map(|f| f.container)) {
                (',', Some(Container::Array)) => {
                    self.state = State::Value { close: false };
                    Ok(())
                }
                (',', Some(Container::Object)) => {
                    self.state = State::Key { close: false };
                    Ok(())
                }
                ('}', Some(Container::Object)) => self.close(Container::Object, out),
                (']', Some(Container::Array)) => self.close(Container::Array, out),
                _ => Err(error(format!("{c:?} where `,` or a closer was expected"))),
            },
            State::Key { close } => match c {
                '"' => {
                    self.token.clear();
                    self.state = State::Str {
                        key: true,
                        role: Role::Other,
                        escape: Escape::None,
                    };
                    Ok(())
                }
                '}' if close => self.close(Container::Object, out),
                _ => Err(error(format!("{c:?} where a key was expected"))),
            },
            State::Colon if c == ':' => {
                self.state = State::Value { close: false };
                Ok(())
            }
            State::Colon => Err(error(format!("{c:?} where `:` was expected"))),
            State::Done => Err(error(format!("{c:?} after the end of the answer"))),
            State::Str { .. } | State::Scalar { .. } => Ok(()),
        }
    }

    fn value(
        &mut self,
        c: char,
        role: Role,
        out: &mut Vec<SegmentEvent>,
    ) -> Result<(), SegmentsError> {
        if role == Role::Root && c != '{' {
            return Err(error("the cited answer is not a JSON object"));
        }
        let container = match c {
            '{' => Container::Object,
            '[' => Container::Array,
            '"' => {
                self.token.clear();
                self.state = State::Str {
                    key: false,
                    role,
                    escape: Escape::None,
                };
                return Ok(());
            }
            c if c == '-' || c.is_ascii_alphanumeric() => {
                self.token.clear();
                self.token.push(c);
                self.state = State::Scalar { role };
                return Ok(());
            }
            _ => return Err(error(format!("{c:?} where a value was expected"))),
        };
        if self.stack.len() >= MAX_DEPTH {
            return Err(error(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        // A role holds only for the shape it names (`segments` that is not an array is
        // skipped like any other value).
        let role = match (role, container) {
            (Role::Root | Role::Segment, Container::Object) => role,
            (Role::Segments | Role::Citations, Container::Array) => role,
            _ => Role::Other,
        };
        if role == Role::Segment {
            out.push(SegmentEvent::SegmentStart);
        }
        self.stack.push(Frame {
            container,
            role,
            next: Role::Other,
        });
        self.state = match container {
            Container::Object => State::Key { close: true },
            Container::Array => State::Value { close: true },
        };
        Ok(())
    }

    fn close(
        &mut self,
        container: Container,
        out: &mut Vec<SegmentEvent>,
    ) -> Result<(), SegmentsError> {
        match self.stack.pop() {
            Some(f) if f.container == container => {
                if f.role == Role::Segment {
                    out.push(SegmentEvent::SegmentEnd);
                }
                self.after_value();
                Ok(())
            }
            _ => Err(error("a closer that matches no opener")),
        }
    }

    fn after_value(&mut self) {
        self.state = if self.stack.is_empty() {
            State::Done
        } else {
            State::After
        };
    }

    fn end_scalar(&mut self, role: Role, out: &mut Vec<SegmentEvent>) -> Result<(), SegmentsError> {
        let t = self.token.as_str();
        let number = t.strip_prefix('-').unwrap_or(t);
        let is_number = number.starts_with(|c: char| c.is_ascii_digit())
            && number
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
        if !is_number && !matches!(t, "true" | "false" | "null") {
            return Err(error(format!("{t:?} is not a JSON value")));
        }
        if role == Role::Cite && !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            out.push(SegmentEvent::Cite(t.parse().ok()));
        }
        self.after_value();
        Ok(())
    }

    fn string_char(
        &mut self,
        c: char,
        key: bool,
        role: Role,
        escape: Escape,
        out: &mut Vec<SegmentEvent>,
    ) -> Result<(), SegmentsError> {
        let set = |this: &mut Self, escape| {
            this.state = State::Str { key, role, escape };
        };
        let decoded = match escape {
            Escape::None => match c {
                '"' => return self.end_string(key, role, out),
                '\\' => {
                    set(self, Escape::Backslash);
                    return Ok(());
                }
                c => c,
            },
            Escape::Backslash => {
                set(self, Escape::None);
                if c == 'u' {
                    set(
                        self,
                        Escape::Unicode {
                            digits: 0,
                            value: 0,
                        },
                    );
                    return Ok(());
                }
                match u8::try_from(c).ok().and_then(short_escape) {
                    Some(b) => char::from(b),
                    None => return Err(error(format!("an unknown escape \\{c}"))),
                }
            }
            Escape::Unicode { digits, value } => {
                let digit = c
                    .to_digit(16)
                    .ok_or_else(|| error(format!("{c:?} in a \\u escape")))?;
                let value = value * 16 + digit;
                if digits < 3 {
                    set(
                        self,
                        Escape::Unicode {
                            digits: digits + 1,
                            value,
                        },
                    );
                    return Ok(());
                }
                set(self, Escape::None);
                match self.unit(value) {
                    Some(c) => c,
                    None => return Ok(()),
                }
            }
        };
        if !matches!(escape, Escape::Unicode { .. }) {
            // A high surrogate not followed by its low half stands alone.
            if self.high.take().is_some() {
                self.string_out(key, role, char::REPLACEMENT_CHARACTER, out);
            }
        }
        self.string_out(key, role, decoded, out);
        Ok(())
    }

    /// One UTF-16 unit of a `\u` escape: a char, or `None` while a pair is half read.
    fn unit(&mut self, unit: u32) -> Option<char> {
        match (self.high.take(), unit) {
            (None, 0xD800..=0xDBFF) => {
                self.high = Some(unit);
                None
            }
            (Some(high), 0xDC00..=0xDFFF) => {
                char::from_u32(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00))
            }
            (Some(_), 0xD800..=0xDBFF) => {
                // The first high surrogate stands alone; this one may still find its pair.
                self.high = Some(unit);
                Some(char::REPLACEMENT_CHARACTER)
            }
            (_, unit) => Some(char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER)),
        }
    }

    fn string_out(&mut self, key: bool, role: Role, c: char, out: &mut Vec<SegmentEvent>) {
        if key || role == Role::Cite {
            // A longer key cannot be a name; a longer run of digits is past u64 anyway.
            if self.token.len() < MAX_TOKEN {
                self.token.push(c);
            }
        } else if role == Role::Text {
            push_text(out, c);
        }
    }

    fn end_string(
        &mut self,
        key: bool,
        role: Role,
        out: &mut Vec<SegmentEvent>,
    ) -> Result<(), SegmentsError> {
        if self.high.take().is_some() {
            self.string_out(key, role, char::REPLACEMENT_CHARACTER, out);
        }
        if key {
            let parent = self.stack.last().map(|f| f.role);
            let next = match (parent, self.token.as_str()) {
                (Some(Role::Root), "segments") => Role::Segments,
                (Some(Role::Segment), "text") => Role::Text,
                (Some(Role::Segment), "citations") => Role::Citations,
                _ => Role::Other,
            };
            if let Some(frame) = self.stack.last_mut() {
                frame.next = next;
            }
            self.state = State::Colon;
            return Ok(());
        }
        if role == Role::Cite {
            let t = self.token.trim();
            if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                out.push(SegmentEvent::Cite(t.parse().ok()));
            }
        }
        self.after_value();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pieces: &[&str]) -> Result<Vec<SegmentEvent>, SegmentsError> {
        let mut r = SegmentsReader::default();
        let mut out = Vec::new();
        for p in pieces {
            r.feed(p, &mut out)?;
        }
        r.finish(&mut out)?;
        Ok(out)
    }

    #[test]
    fn reads_segments_cut_anywhere() {
        use SegmentEvent::*;
        let json = r#"{"segments":[{"text":"A \"b\" \u00e9\ud83d\ude00.","citations":[1,"2"]},{"x":{"y":[1]},"citations":[],"text":""}]}"#;
        let want = vec![
            SegmentStart,
            Text("A \"b\" é😀.".into()),
            Cite(Some(1)),
            Cite(Some(2)),
            SegmentEnd,
            SegmentStart,
            SegmentEnd,
        ];
        assert_eq!(read(&[json]).unwrap(), want);
        let chars: Vec<String> = json.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        let mut merged: Vec<SegmentEvent> = Vec::new();
        for e in read(&pieces).unwrap() {
            match (merged.last_mut(), e) {
                (Some(Text(a)), Text(b)) => a.push_str(&b),
                (_, e) => merged.push(e),
            }
        }
        assert_eq!(merged, want);
    }

    #[test]
    fn bad_json_is_an_error() {
        for bad in [
            "[1]",
            r#"{"segments": [}"#,
            r#"{"segments": tru}"#,
            r#"{"a": "\q"}"#,
            r#"{"a": 1} x"#,
            r#"{"segments": [{"text": "cut"#,
        ] {
            assert!(read(&[bad]).is_err(), "{bad}");
        }
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(read(&[&deep]).is_err());
        assert_eq!(
            read(&[r#"{"segments":[{"citations":[99999999999999999999999]}]}"#]).unwrap()[1],
            SegmentEvent::Cite(None)
        );
    }
}
