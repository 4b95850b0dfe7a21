//! What a driver tells a call machine happened.

/// What happened to the step asked for. An outcome that does not answer the current step (a
/// body when a send was asked for) changes nothing; [`Outcome::Aborted`] ends any step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome<'a> {
    /// A [`super::Step::Send`] got an answer: its status and headers.
    Answered(Head<'a>),
    /// A [`super::Step::Read`]'s body: the text read, and whether the body ended within the
    /// limit (`false`: it went on past it, and `text` holds at most the limit).
    Body { text: &'a str, complete: bool },
    /// The request, or the reading of its body, failed: what the runtime's error says (its
    /// message, and its `cause`'s code and message where it has one).
    NetworkFailed {
        message: &'a str,
        cause_code: Option<&'a str>,
        cause_message: Option<&'a str>,
    },
    /// The attempt's timer ran out before the answer (or its body) came.
    TimedOut,
    /// A [`super::Step::Wait`] is over.
    Waited,
    /// The caller cancelled the call.
    Aborted,
}

/// An answer's status and the headers the machine reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Head<'a> {
    /// The HTTP status (ignored for an opaque redirect).
    pub status: u16,
    /// A redirect the runtime hid (a browser's `opaqueredirect` answer).
    pub opaque_redirect: bool,
    /// The answer has no body to stream (a fetch of your own may answer without one).
    pub without_body: bool,
    pub content_type: Option<&'a str>,
    pub retry_after: Option<&'a str>,
    /// The `Location` header resolved against the address sent to, when it has one that is a
    /// valid URL.
    pub location: Option<Target<'a>>,
}

/// Where a `Location` header points, as the driver's URL parser resolved it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target<'a> {
    /// The absolute address.
    pub href: &'a str,
    /// Its origin (`https://host:port`).
    pub origin: &'a str,
    /// Whether that is the origin of the address sent to.
    pub same_origin: bool,
}
