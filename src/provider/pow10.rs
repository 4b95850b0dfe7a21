//! The powers of ten a JSON number's digits are scaled by where that can overflow an `f64`,
//! 1e289 to 1e308, each the nearest `f64` (as the literals are, and as serde_json's table, without
//! its `float_roundtrip` feature, has them): [`super::message_reader`] checks a number's range
//! with them exactly as serde_json computes it, so both reject the same numbers as out of range.

/// The exponent of [`POW10_HIGH`]'s first power.
pub(super) const FIRST_POW10_HIGH: i32 = 289;

pub(super) static POW10_HIGH: [f64; 20] = [
    1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, 1e300, 1e301,
    1e302, 1e303, 1e304, 1e305, 1e306, 1e307, 1e308,
];
