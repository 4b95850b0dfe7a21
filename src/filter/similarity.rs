//! Cosine similarity of one query vector against many, over a flat row-major matrix.
//! With the `simd128` target feature (every runtime we support has wasm SIMD) the dot
//! products run four lanes at a time.

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimilarityError {
    #[error("the query embedding is empty")]
    EmptyQuery,
    #[error("{rows} embedding values do not divide into vectors of the query's {dim} dimensions")]
    Ragged { rows: usize, dim: usize },
    #[error("{which} embedding has a value that is not a finite number (NaN or infinity)")]
    NotFinite { which: String },
}

impl SimilarityError {
    pub fn code(&self) -> &'static str {
        "INVALID_EMBEDDING"
    }
}

/// The dot product of `a` and `b` and the squared norm of `b`, over their common length
/// (callers pass equal lengths).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn dot_and_norm(a: &[f32], b: &[f32]) -> (f32, f32) {
    use core::arch::wasm32::*;
    let (mut dot, mut nb) = (f32x4_splat(0.0), f32x4_splat(0.0));
    let (xs, ys) = (a.chunks_exact(4), b.chunks_exact(4));
    let (rest_a, rest_b) = (xs.remainder(), ys.remainder());
    for (x, y) in xs.zip(ys) {
        // SAFETY: `x` and `y` are exactly four f32 (16 bytes) each; v128_load allows
        // unaligned reads.
        let (x, y) = unsafe {
            (
                v128_load(x.as_ptr() as *const v128),
                v128_load(y.as_ptr() as *const v128),
            )
        };
        dot = f32x4_add(dot, f32x4_mul(x, y));
        nb = f32x4_add(nb, f32x4_mul(y, y));
    }
    let sum = |v: v128| {
        f32x4_extract_lane::<0>(v)
            + f32x4_extract_lane::<1>(v)
            + f32x4_extract_lane::<2>(v)
            + f32x4_extract_lane::<3>(v)
    };
    let (mut d, mut n) = (sum(dot), sum(nb));
    for (x, y) in rest_a.iter().zip(rest_b) {
        d += x * y;
        n += y * y;
    }
    (d, n)
}

/// The dot product of `a` and `b` and the squared norm of `b`, over their common length
/// (callers pass equal lengths).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn dot_and_norm(a: &[f32], b: &[f32]) -> (f32, f32) {
    // Four accumulators, like the SIMD path, so both sum in the same order.
    let (mut d, mut n) = ([0.0f32; 4], [0.0f32; 4]);
    let (xs, ys) = (a.chunks_exact(4), b.chunks_exact(4));
    let (rest_a, rest_b) = (xs.remainder(), ys.remainder());
    for (x, y) in xs.zip(ys) {
        for (((dl, nl), xl), yl) in d.iter_mut().zip(n.iter_mut()).zip(x).zip(y) {
            *dl += xl * yl;
            *nl += yl * yl;
        }
    }
    let [d0, d1, d2, d3] = d;
    let [n0, n1, n2, n3] = n;
    let (mut dd, mut nn) = (d0 + d1 + d2 + d3, n0 + n1 + n2 + n3);
    for (x, y) in rest_a.iter().zip(rest_b) {
        dd += x * y;
        nn += y * y;
    }
    (dd, nn)
}

/// Cosine of `query` with each row of `matrix` (rows of `query.len()` values). A zero
/// vector has similarity 0 with everything (not NaN). NaN or infinite values are errors.
pub fn cosine_scores(query: &[f32], matrix: &[f32]) -> Result<Vec<f32>, SimilarityError> {
    let dim = query.len();
    if dim == 0 {
        return Err(SimilarityError::EmptyQuery);
    }
    if !matrix.len().is_multiple_of(dim) {
        return Err(SimilarityError::Ragged {
            rows: matrix.len(),
            dim,
        });
    }
    if query.iter().any(|x| !x.is_finite()) {
        return Err(SimilarityError::NotFinite {
            which: "the query".into(),
        });
    }
    let (_, qn) = dot_and_norm(query, query);
    let qn = qn.sqrt();
    let mut out = Vec::with_capacity(matrix.len() / dim);
    for (row, v) in matrix.chunks_exact(dim).enumerate() {
        let (dot, vn) = dot_and_norm(query, v);
        if !(dot.is_finite() && vn.is_finite()) {
            return Err(SimilarityError::NotFinite {
                which: format!("chunk {row}'s"),
            });
        }
        let denom = qn * vn.sqrt();
        out.push(if denom > 0.0 {
            (dot / denom).clamp(-1.0, 1.0)
        } else {
            0.0
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosines() {
        let q = [1.0, 0.0, 0.0, 0.0, 0.0];
        let m = [
            2.0, 0.0, 0.0, 0.0, 0.0, //
            0.0, 3.0, 0.0, 0.0, 0.0, //
            1.0, 1.0, 0.0, 0.0, 0.0, //
            0.0, 0.0, 0.0, 0.0, 0.0, //
            -1.0, 0.0, 0.0, 0.0, 0.0,
        ];
        let s = cosine_scores(&q, &m).unwrap();
        assert_eq!(s[0], 1.0);
        assert_eq!(s[1], 0.0);
        assert!((s[2] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
        assert_eq!(s[3], 0.0, "zero vector → 0, not NaN");
        assert_eq!(s[4], -1.0);
    }

    #[test]
    fn bad_embeddings() {
        assert_eq!(
            cosine_scores(&[], &[]).unwrap_err(),
            SimilarityError::EmptyQuery
        );
        assert!(matches!(
            cosine_scores(&[1.0, 2.0], &[1.0, 2.0, 3.0]),
            Err(SimilarityError::Ragged { .. })
        ));
        let e = cosine_scores(&[1.0, 2.0], &[1.0, 2.0, f32::NAN, 1.0]).unwrap_err();
        assert!(e.to_string().contains("chunk 1"), "{e}");
        assert!(cosine_scores(&[f32::INFINITY, 1.0], &[1.0, 2.0]).is_err());
    }
}
