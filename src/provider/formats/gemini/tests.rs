//! Unit tests of the Gemini decoder and request.
