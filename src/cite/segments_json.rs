//! An incremental reader of the cited-answer JSON (`{segments: [{text, citations: [id]}]}`,
//! see [`super::enforce`]): text in pieces cut anywhere (inside a string, an escape, a
//! surrogate pair or a number), what it says out as soon as it is known: a segment begins,
//! sentence text, a cited id, a segment ends.
//!
//! Every piece of the JSON is checked (a bad token is an error, not skipped; numbers by JSON's
//! grammar), objects and arrays nest at most [`MAX_DEPTH`] deep, and memory stays bounded
//! whatever the input: only a key's first characters and a cited id's first
//! [`MAX_TOKEN`] characters are ever kept; numbers of any length are read exactly, digit by
//! digit, in a few counters.
//!
//! Every id in `citations` comes out, whatever its type: a whole number (written any way JSON
//! allows, `2`, `2.0`, `20e-1`, or as a string holding one, `" 2 "`) as [`CitedId::Number`],
//! anything else (`-1`, `1.5`, `1e300`, `true`, `null`, a string, an array or object, one
//! value however deep) as [`CitedId::Other`] with its text as written. A `citations` value
//! that is not an array is one id.

use crate::json_escape::short_escape;

/// How deep objects and arrays may nest (serde_json's own limit).
pub const MAX_DEPTH: usize = 128;
/// The most characters kept of a key (a longer one cannot match a name) and of a cited id's
/// text as written (a longer one is cut, `…` after it).
pub const MAX_TOKEN: usize = 32;

/// A cited id as the model wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CitedId {
    /// A whole number that fits 32 bits (0 included), however written: `2`, `2.0`, `0.2e1`,
    /// `"2"`.
    Number(u32),
    /// Anything else, as written: its JSON text (a string with its quotes and escapes), the
    /// whitespace between tokens left out, cut after [`MAX_TOKEN`] characters with `…`.
    Other(String),
}

/// What the JSON says, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentEvent {
    SegmentStart,
    /// Decoded sentence text (consecutive pieces merged).
    Text(String),
    /// A cited id (each one, in order, repeats included).
    Cite(CitedId),
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

/// Where a number is in JSON's grammar (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum NumberPhase {
    #[default]
    Start,
    Minus,
    /// A leading `0`: no digit may follow.
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
    /// Not a JSON number.
    Bad,
}

/// A JSON number read a character at a time, exactly, in constant memory: its significant
/// digits while they fit `u64`, and counts of the rest. Its value is `mantissa × 10^(zeros +
/// exponent − fraction digits)`; the mantissa's last digit is never 0 (zeros after it wait in
/// `zeros`), which is what tells a whole number from a fraction without keeping the digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Number {
    phase: NumberPhase,
    negative: bool,
    mantissa: u64,
    /// More significant digits than `u64` holds: never a whole number that fits 32 bits
    /// (either at least 10^19, or a fraction, its last significant digit not being 0).
    overflow: bool,
    /// Zeros read after the mantissa's last nonzero digit.
    zeros: u64,
    /// Digits after the decimal point.
    fraction: u64,
    exponent: u64,
    negative_exponent: bool,
}

impl Number {
    /// Reads one character; false when the number cannot go on with it (then `phase` is `Bad`).
    fn push(&mut self, c: char) -> bool {
        use NumberPhase::*;
        let digit = c.to_digit(10);
        self.phase = match (self.phase, c, digit) {
            (Start, '-', _) => {
                self.negative = true;
                Minus
            }
            (Start | Minus, '0', _) => Zero,
            (Start | Minus, _, Some(d)) => {
                self.digit(d);
                Int
            }
            (Int, _, Some(d)) => {
                self.digit(d);
                Int
            }
            (Zero | Int, '.', _) => Dot,
            (Dot | Frac, _, Some(d)) => {
                self.fraction = self.fraction.saturating_add(1);
                self.digit(d);
                Frac
            }
            (Zero | Int | Frac, 'e' | 'E', _) => E,
            (E, '+' | '-', _) => {
                self.negative_exponent = c == '-';
                ESign
            }
            (E | ESign | Exp, _, Some(d)) => {
                self.exponent = self
                    .exponent
                    .saturating_mul(10)
                    .saturating_add(u64::from(d));
                Exp
            }
            _ => Bad,
        };
        self.phase != Bad
    }

    /// A digit of the significand (before or after the point).
    fn digit(&mut self, d: u32) {
        if d == 0 {
            if self.mantissa != 0 || self.overflow {
                self.zeros = self.zeros.saturating_add(1);
            }
            return;
        }
        // Past 19 zeros any nonzero mantissa overflows (a first digit has none before it).
        let mut scaled = Some(self.mantissa);
        for _ in 0..=self.zeros.min(20) {
            scaled = scaled.and_then(|m| m.checked_mul(10));
        }
        let scaled = scaled.and_then(|m| m.checked_add(u64::from(d)));
        match scaled {
            Some(m) if !self.overflow => self.mantissa = m,
            _ => self.overflow = true,
        }
        self.zeros = 0;
    }

    /// Whether the number is complete (JSON's grammar allows it to end here).
    fn is_complete(&self) -> bool {
        use NumberPhase::*;
        matches!(self.phase, Zero | Int | Frac | Exp)
    }

    /// Its value, when it is a whole number that fits 32 bits (`-0` is 0).
    fn whole(&self) -> Option<u32> {
        if !self.is_complete() || self.overflow {
            return None;
        }
        if self.mantissa == 0 {
            return Some(0);
        }
        if self.negative {
            return None;
        }
        // The value is mantissa × 10^(up − down).
        let (up, down) = if self.negative_exponent {
            (self.zeros, self.fraction.saturating_add(self.exponent))
        } else {
            (self.zeros.saturating_add(self.exponent), self.fraction)
        };
        // Dividing by 10 a mantissa that ends in a nonzero digit leaves a fraction.
        let shift = up.checked_sub(down)?;
        // A shift past 9 is past 32 bits (the mantissa is at least 1).
        let mut value = self.mantissa;
        for _ in 0..shift.min(10) {
            value = value.checked_mul(10)?;
        }
        u32::try_from(value).ok()
    }
}

/// A string read as a number: surrounding whitespace allowed, nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct NumberInString {
    number: Number,
    /// Whitespace after the number's characters: only whitespace may follow.
    trailing: bool,
    failed: bool,
}

impl NumberInString {
    fn push(&mut self, c: char) {
        if self.failed {
            return;
        }
        if c.is_whitespace() {
            self.trailing |= self.number.phase != NumberPhase::Start;
        } else if self.trailing || !self.number.push(c) {
            self.failed = true;
        }
    }

    fn whole(&self) -> Option<u32> {
        if self.failed {
            None
        } else {
            self.number.whole()
        }
    }
}

/// The text of a cited id as written, kept up to [`MAX_TOKEN`] characters.
#[derive(Debug, Clone, Default)]
struct Written {
    text: String,
    chars: usize,
    /// The stack depth outside the id (an array or object id ends when it is back to it).
    depth: usize,
}

impl Written {
    fn push(&mut self, c: char) {
        if self.chars < MAX_TOKEN {
            self.text.push(c);
        } else if self.chars == MAX_TOKEN {
            self.text.push('…');
        }
        self.chars = self.chars.saturating_add(1);
    }
}

/// Why the text is not a cited answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentsError(pub String);

/// The reader's state between pieces.
#[derive(Debug, Clone)]
pub struct SegmentsReader {
    stack: Vec<Frame>,
    state: State,
    /// The key being read or the literal (`true`, `false`, `null`) being read: their first
    /// characters.
    token: String,
    /// The number being read (a scalar that starts with `-` or a digit).
    number: Number,
    /// The cited id being read as a number, when it is a string.
    string_number: NumberInString,
    /// The cited id being read, as written (while one is).
    written: Option<Written>,
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
            number: Number::default(),
            string_number: NumberInString::default(),
            written: None,
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
            State::Str { key, role, escape } => {
                self.write(c);
                return self.string_char(c, key, role, escape, out);
            }
            State::Scalar { role } => {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-') {
                    self.write(c);
                    self.scalar_char(c);
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
        // Inside an array or object given as an id (its first character is written when it
        // begins, below).
        self.write(c);
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

    /// Appends `c` to the id being read as written, if one is.
    fn write(&mut self, c: char) {
        if let Some(written) = self.written.as_mut() {
            written.push(c);
        }
    }

    /// A character of a scalar: a number's, or a literal's (its first characters kept: a
    /// longer literal fails anyway).
    fn scalar_char(&mut self, c: char) {
        if self.number.phase == NumberPhase::Start {
            if self.token.len() < MAX_TOKEN {
                self.token.push(c);
            }
        } else {
            self.number.push(c);
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
        // `citations` that is not an array is one id.
        let role = if role == Role::Citations && c != '[' {
            Role::Cite
        } else {
            role
        };
        if role == Role::Cite {
            let mut written = Written {
                depth: self.stack.len(),
                ..Written::default()
            };
            written.push(c);
            self.written = Some(written);
        }
        let container = match c {
            '{' => Container::Object,
            '[' => Container::Array,
            '"' => {
                self.token.clear();
                self.string_number = NumberInString::default();
                self.state = State::Str {
                    key: false,
                    role,
                    escape: Escape::None,
                };
                return Ok(());
            }
            c if c == '-' || c.is_ascii_alphanumeric() => {
                self.token.clear();
                self.number = Number::default();
                if c == '-' || c.is_ascii_digit() {
                    self.number.push(c);
                } else {
                    self.token.push(c);
                }
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
                // An array or object given as an id: one id, as written.
                if self
                    .written
                    .as_ref()
                    .is_some_and(|w| w.depth == self.stack.len())
                {
                    self.cite(None, out);
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
        let whole = if self.number.phase == NumberPhase::Start {
            let t = self.token.as_str();
            if !matches!(t, "true" | "false" | "null") {
                return Err(error(format!("{t:?} is not a JSON value")));
            }
            None
        } else if self.number.is_complete() {
            self.number.whole()
        } else {
            return Err(error("a number that is not valid JSON"));
        };
        if role == Role::Cite {
            self.cite(whole, out);
        }
        self.after_value();
        Ok(())
    }

    /// The id just read: `whole` when it is a whole number, else as written.
    fn cite(&mut self, whole: Option<u32>, out: &mut Vec<SegmentEvent>) {
        let written = self.written.take().map(|w| w.text).unwrap_or_default();
        out.push(SegmentEvent::Cite(match whole {
            Some(n) => CitedId::Number(n),
            None => CitedId::Other(written),
        }));
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
        if key {
            // A longer key cannot be a name.
            if self.token.len() < MAX_TOKEN {
                self.token.push(c);
            }
        } else if role == Role::Cite {
            self.string_number.push(c);
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
            let whole = self.string_number.whole();
            self.cite(whole, out);
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
            Cite(CitedId::Number(1)),
            Cite(CitedId::Number(2)),
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
            SegmentEvent::Cite(CitedId::Other("99999999999999999999999".into()))
        );
        for bad in ["01", "1.", "1e", "-", "1..2", "1e+-1", "00", "-01", "1.e1"] {
            let json = format!(r#"{{"a":{bad}}}"#);
            assert!(read(&[&json]).is_err(), "{bad}");
        }
    }

    /// Each way of writing a number reads as its value: a whole number that fits 32 bits, or
    /// none (the id is then kept as written).
    #[test]
    fn numbers_read_exactly() {
        let whole = |text: &str| {
            let mut n = Number::default();
            assert!(text.chars().all(|c| n.push(c)), "{text}");
            assert!(n.is_complete(), "{text}");
            n.whole()
        };
        for (text, want) in [
            ("0", Some(0)),
            ("-0", Some(0)),
            ("0.0e5", Some(0)),
            ("2", Some(2)),
            ("2.0", Some(2)),
            ("2.000", Some(2)),
            ("20e-1", Some(2)),
            ("0.2E1", Some(2)),
            ("200e-2", Some(2)),
            ("2e+0", Some(2)),
            ("4294967295", Some(u32::MAX)),
            ("4294967296", None),
            ("42949672.95e2", Some(u32::MAX)),
            ("1e9", Some(1_000_000_000)),
            ("1e10", None),
            ("1e300", None),
            ("1e99999999999999999999999", None),
            ("1e-99999999999999999999999", None),
            ("-1", None),
            ("-2.0", None),
            ("1.5", None),
            ("25e-1", None),
            ("0.05e2", Some(5)),
            ("123456789012345678901234567890e-29", None),
            ("100000000000000000000000000000e-29", Some(1)),
        ] {
            assert_eq!(whole(text), want, "{text}");
        }
        let long_two = format!("2.{}", "0".repeat(5000));
        assert_eq!(whole(&long_two), Some(2));
        let long_one = format!("0.{}1e5000", "0".repeat(4999));
        assert_eq!(whole(&long_one), Some(1));
    }

    /// Every id comes out, whatever its type; arrays and objects as one id, as written.
    #[test]
    fn every_id_comes_out() {
        use CitedId::*;
        let json = r#"{"segments":[{"citations":[2.0, -1, true, null, "2", " 3 ", "x", [1, [2]], {"a": "b c"}, "\u0041"]}]}"#;
        let events = read(&[json]).unwrap();
        let ids: Vec<CitedId> = events
            .into_iter()
            .filter_map(|e| match e {
                SegmentEvent::Cite(id) => Some(id),
                _ => None,
            })
            .collect();
        let other = |s: &str| Other(s.to_owned());
        assert_eq!(
            ids,
            [
                Number(2),
                other("-1"),
                other("true"),
                other("null"),
                Number(2),
                Number(3),
                other(r#""x""#),
                other("[1,[2]]"),
                other(r#"{"a":"b c"}"#),
                other(r#""\u0041""#),
            ]
        );
        // Deeper than MAX_DEPTH inside an id is still an error.
        let deep = format!(
            r#"{{"segments":[{{"citations":[{}{}]}}]}}"#,
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert!(read(&[&deep]).is_err());
    }
}
