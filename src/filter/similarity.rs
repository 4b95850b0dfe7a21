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

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn dot_and_norm(a: &[f32], b: &[f32]) -> (f32, f32) {
    use core::arch::wasm32::*;
    let (mut dot, mut nb) = (f32x4_splat(0.0), f32x4_splat(0.0));
    let lanes = a.len() / 4 * 4;
    let mut i = 0;
    while i < lanes {
        // SAFETY: i + 4 <= lanes <= a.len() == b.len(); v128_load allows unaligned reads.
        let (x, y) = unsafe {
            (
                v128_load(a.as_ptr().add(i) as *const v128),
                v128_load(b.as_ptr().add(i) as *const v128),
            )
        };
        dot = f32x4_add(dot, f32x4_mul(x, y));
        nb = f32x4_add(nb, f32x4_mul(y, y));
        i += 4;
    }
    let sum = |v: v128| {
        f32x4_extract_lane::<0>(v)
            + f32x4_extract_lane::<1>(v)
            + f32x4_extract_lane::<2>(v)
            + f32x4_extract_lane::<3>(v)
    };
    let (mut d, mut n) = (sum(dot), sum(nb));
    for k in lanes..a.len() {
        d += a[k] * b[k];
        n += b[k] * b[k];
    }
    (d, n)
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn dot_and_norm(a: &[f32], b: &[f32]) -> (f32, f32) {
    // Four accumulators, like the SIMD path, so both sum in the same order.
    let (mut d, mut n) = ([0.0f32; 4], [0.0f32; 4]);
    let lanes = a.len() / 4 * 4;
    for i in (0..lanes).step_by(4) {
        for l in 0..4 {
            d[l] += a[i + l] * b[i + l];
            n[l] += b[i + l] * b[i + l];
        }
    }
    let (mut dd, mut nn) = (d[0] + d[1] + d[2] + d[3], n[0] + n[1] + n[2] + n[3]);
    for k in lanes..a.len() {
        dd += a[k] * b[k];
        nn += b[k] * b[k];
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
    if matrix.len() % dim != 0 {
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
