//! Dense linear algebra in f64 for the exact diagnostics ([`super::spectrum`]), hand-written
//! (no dependency for a few hundred lines, and the same code in wasm):
//!
//! - [`symmetric_eigen`]: the cyclic Jacobi method for a symmetric matrix (Golub & Van Loan,
//!   *Matrix Computations*, 4th ed., §8.5.2–8.5.3), eigenvalues and eigenvectors;
//! - [`svd`]: the one-sided Jacobi SVD of Hestenes (1958) (Golub & Van Loan §8.6.3's
//!   one-sided variant): orthogonalise the columns by plane rotations, the column norms are
//!   the singular values;
//! - [`lanczos_largest`]: the largest eigenvalue of a symmetric positive semi-definite operator
//!   given only as a product, on the complement of a known eigenvector, by the Lanczos method
//!   with full reorthogonalisation (Golub & Van Loan §10.1), the Ritz values of the
//!   tridiagonal matrix by Sturm-sequence bisection (§8.4.1).

/// Eigenvalues (ascending) and eigenvectors of the symmetric `n × n` matrix `a` (row-major),
/// by cyclic Jacobi rotations until the off-diagonal part is below 10⁻¹⁵ of the matrix's norm.
/// Eigenvector j is column j of the returned row-major `n × n` matrix.
pub fn symmetric_eigen(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    assert_eq!(a.len(), n * n, "a square matrix");
    let mut a = a.to_vec();
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    let norm: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j] * a[i * n + j])
            .sum::<f64>()
            .sqrt();
        if off <= 1e-15 * norm || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let (app, aqq) = (a[p * n + p], a[q * n + q]);
                // Golub & Van Loan Algorithm 8.5.1 (symmetric Schur decomposition).
                let tau = (aqq - app) / (2.0 * apq);
                let t = tau.signum() / (tau.abs() + (1.0 + tau * tau).sqrt());
                let t = if tau == 0.0 { 1.0 } else { t };
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[i * n + i].total_cmp(&a[j * n + j]));
    let values = order.iter().map(|&i| a[i * n + i]).collect();
    let mut vectors = vec![0.0; n * n];
    for (col, &i) in order.iter().enumerate() {
        for k in 0..n {
            vectors[k * n + col] = v[k * n + i];
        }
    }
    (values, vectors)
}

/// A thin singular value decomposition `A = U diag(σ) Vᵀ` of a `rows × cols` matrix.
#[derive(Clone, Debug)]
pub struct Svd {
    /// The r = min(rows, cols) singular values, descending.
    pub values: Vec<f64>,
    /// Left singular vectors, `rows × r` row-major (column j belongs to `values[j]`).
    pub u: Vec<f64>,
    /// Right singular vectors, `cols × r` row-major (column j belongs to `values[j]`).
    pub v: Vec<f64>,
}

/// The one-sided Jacobi SVD (Hestenes 1958) of the `rows × cols` row-major matrix `a`: plane
/// rotations of pairs of columns until every pair is orthogonal to 10⁻¹⁵ relative; σ_j is the
/// norm of column j, `u_j` the column over σ_j (zero for σ_j = 0), V the product of the
/// rotations. A wide matrix is decomposed through its transpose.
pub fn svd(a: &[f64], rows: usize, cols: usize) -> Svd {
    assert_eq!(a.len(), rows * cols, "a rows × cols matrix");
    if rows < cols {
        let t: Vec<f64> = (0..cols)
            .flat_map(|j| (0..rows).map(move |i| (i, j)))
            .map(|(i, j)| a[i * cols + j])
            .collect();
        let s = svd(&t, cols, rows);
        return Svd {
            values: s.values,
            u: s.v,
            v: s.u,
        };
    }
    let (r, c) = (rows, cols);
    let mut a = a.to_vec();
    let mut v = vec![0.0; c * c];
    for i in 0..c {
        v[i * c + i] = 1.0;
    }
    let col_dot =
        |a: &[f64], p: usize, q: usize| (0..r).map(|k| a[k * c + p] * a[k * c + q]).sum::<f64>();
    for _sweep in 0..100 {
        let mut rotated = false;
        for p in 0..c {
            for q in p + 1..c {
                let (alpha, beta, gamma) =
                    (col_dot(&a, p, p), col_dot(&a, q, q), col_dot(&a, p, q));
                if gamma == 0.0 || gamma.abs() <= 1e-15 * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = if zeta == 0.0 {
                    1.0
                } else {
                    zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt())
                };
                let cs = 1.0 / (1.0 + t * t).sqrt();
                let sn = cs * t;
                for k in 0..r {
                    let (x, y) = (a[k * c + p], a[k * c + q]);
                    a[k * c + p] = cs * x - sn * y;
                    a[k * c + q] = sn * x + cs * y;
                }
                for k in 0..c {
                    let (x, y) = (v[k * c + p], v[k * c + q]);
                    v[k * c + p] = cs * x - sn * y;
                    v[k * c + q] = sn * x + cs * y;
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let norms: Vec<f64> = (0..c).map(|j| col_dot(&a, j, j).sqrt()).collect();
    let mut order: Vec<usize> = (0..c).collect();
    order.sort_by(|&i, &j| norms[j].total_cmp(&norms[i]));
    let mut out = Svd {
        values: order.iter().map(|&j| norms[j]).collect(),
        u: vec![0.0; r * c],
        v: vec![0.0; c * c],
    };
    for (col, &j) in order.iter().enumerate() {
        for k in 0..r {
            out.u[k * c + col] = if norms[j] > 0.0 {
                a[k * c + j] / norms[j]
            } else {
                0.0
            };
        }
        for k in 0..c {
            out.v[k * c + col] = v[k * c + j];
        }
    }
    out
}

/// The number of eigenvalues below `x` of the symmetric tridiagonal matrix with diagonal
/// `alpha` and off-diagonal `beta` (Sturm sequence of its LDLᵀ factorisation).
fn sturm_count(alpha: &[f64], beta: &[f64], x: f64) -> usize {
    let mut count = 0;
    let mut d = 1.0;
    for (i, &a) in alpha.iter().enumerate() {
        let b2 = if i == 0 {
            0.0
        } else {
            beta[i - 1] * beta[i - 1]
        };
        d = a - x - if i == 0 { 0.0 } else { b2 / d };
        if d == 0.0 {
            d = -f64::MIN_POSITIVE.sqrt();
        }
        if d < 0.0 {
            count += 1;
        }
    }
    count
}

/// The largest eigenvalue of the symmetric tridiagonal matrix (`alpha` diagonal, `beta` the
/// off-diagonal, one shorter), by bisection to f64 resolution.
pub fn tridiagonal_largest(alpha: &[f64], beta: &[f64]) -> f64 {
    let k = alpha.len();
    assert!(k > 0 && beta.len() + 1 == k, "a k × k tridiagonal matrix");
    // Gershgorin bounds.
    let radius = |i: usize| {
        (if i > 0 { beta[i - 1].abs() } else { 0.0 })
            + (if i + 1 < k { beta[i].abs() } else { 0.0 })
    };
    let mut lo = (0..k)
        .map(|i| alpha[i] - radius(i))
        .fold(f64::INFINITY, f64::min);
    let mut hi = (0..k)
        .map(|i| alpha[i] + radius(i))
        .fold(f64::NEG_INFINITY, f64::max);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        // All k eigenvalues below mid: the largest is below it.
        if sturm_count(alpha, beta, mid) == k {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// What [`lanczos_largest`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Largest {
    /// The largest eigenvalue on the complement of the deflated vector.
    pub value: f64,
    /// Lanczos steps taken (products with the operator).
    pub steps: usize,
}

/// The largest eigenvalue of the symmetric operator `apply` (y ← A x on vectors of length
/// `dim`) restricted to the orthogonal complement of the unit eigenvector `deflate`, by the
/// Lanczos method from `start` with every Lanczos vector reorthogonalised against `deflate` and
/// all earlier ones (so the known eigenvalue never reappears and no spurious copies arise).
/// Stops when the space is exhausted (β = 0: the Krylov space is invariant and the Ritz value is
/// exact), after `dim − 1` steps, or when the largest Ritz value changed by at most `tol`
/// (relative, at least 10⁻¹⁵) over the last three steps; at most `max_steps` steps. The
/// same numbers as [`Lanczos`] stepped in any slices.
pub fn lanczos_largest(
    dim: usize,
    mut apply: impl FnMut(&[f64], &mut [f64]),
    deflate: &[f64],
    start: &[f64],
    max_steps: usize,
    tol: f64,
) -> Largest {
    let mut l = Lanczos::new(dim, deflate, start, max_steps, tol);
    while !l.done() {
        l.step(&mut apply);
    }
    l.result()
}

/// [`lanczos_largest`] one step at a time, for a shell that spreads it over time slices (with
/// progress and cancel).
#[derive(Clone, Debug)]
pub struct Lanczos {
    deflate: Vec<f64>,
    basis: Vec<Vec<f64>>,
    alpha: Vec<f64>,
    beta: Vec<f64>,
    history: Vec<f64>,
    w: Vec<f64>,
    limit: usize,
    tol: f64,
    result: Option<Largest>,
}

fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>()
}

fn orth(x: &mut [f64], q: &[f64]) {
    let d = dot(x, q);
    x.iter_mut().zip(q).for_each(|(a, b)| *a -= d * b);
}

impl Lanczos {
    /// Ready to step (see [`lanczos_largest`] for the arguments).
    pub fn new(dim: usize, deflate: &[f64], start: &[f64], max_steps: usize, tol: f64) -> Lanczos {
        assert!(dim >= 1 && deflate.len() == dim && start.len() == dim);
        let mut q = start.to_vec();
        orth(&mut q, deflate);
        orth(&mut q, deflate);
        let norm = dot(&q, &q).sqrt();
        let trivial = dim == 1 || norm == 0.0;
        if !trivial {
            q.iter_mut().for_each(|x| *x /= norm);
        }
        Lanczos {
            deflate: deflate.to_vec(),
            basis: vec![q],
            alpha: Vec::new(),
            beta: Vec::new(),
            history: Vec::new(),
            w: vec![0.0; dim],
            limit: max_steps.min(dim.saturating_sub(1)).max(1),
            tol,
            result: trivial.then_some(Largest {
                value: 0.0,
                steps: 0,
            }),
        }
    }

    /// Whether it has stopped.
    pub fn done(&self) -> bool {
        self.result.is_some()
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.alpha.len()
    }

    /// The most steps it may take.
    pub fn max_steps(&self) -> usize {
        self.limit
    }

    /// The result once [`Lanczos::done`]; before, the largest Ritz value so far.
    pub fn result(&self) -> Largest {
        self.result.unwrap_or(Largest {
            value: self.history.last().copied().unwrap_or(0.0),
            steps: self.steps(),
        })
    }

    /// One Lanczos step (one product with the operator); nothing once done.
    pub fn step(&mut self, mut apply: impl FnMut(&[f64], &mut [f64])) {
        if self.done() {
            return;
        }
        let j = self.basis.len() - 1;
        apply(&self.basis[j], &mut self.w);
        let a = dot(&self.w, &self.basis[j]);
        self.alpha.push(a);
        // Full reorthogonalisation, twice ("twice is enough").
        for _ in 0..2 {
            orth(&mut self.w, &self.deflate);
            for b in &self.basis {
                orth(&mut self.w, b);
            }
        }
        let theta = tridiagonal_largest(&self.alpha, &self.beta);
        self.history.push(theta);
        let b = dot(&self.w, &self.w).sqrt();
        let scale = self
            .alpha
            .iter()
            .fold(0.0f64, |s, x| s.max(x.abs()))
            .max(f64::MIN_POSITIVE);
        let settled = self.history.len() >= 4 && {
            let last = &self.history[self.history.len() - 4..];
            let spread = last.iter().fold(f64::NEG_INFINITY, |s, &x| s.max(x))
                - last.iter().fold(f64::INFINITY, |s, &x| s.min(x));
            spread <= self.tol.max(1e-15) * theta.abs().max(1e-300)
        };
        if b <= 1e-13 * scale || self.basis.len() >= self.limit || settled {
            self.result = Some(Largest {
                value: theta,
                steps: self.basis.len(),
            });
            return;
        }
        self.beta.push(b);
        self.basis.push(self.w.iter().map(|x| x / b).collect());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{normal, stream, Purpose};

    fn random(rows: usize, cols: usize, seed: u64) -> Vec<f64> {
        let mut r = stream(seed, 0, Purpose::Aux);
        (0..rows * cols).map(|_| normal(&mut r)).collect()
    }

    fn gram(a: &[f64], rows: usize, cols: usize) -> Vec<f64> {
        let mut g = vec![0.0; cols * cols];
        for i in 0..cols {
            for j in 0..cols {
                g[i * cols + j] = (0..rows).map(|k| a[k * cols + i] * a[k * cols + j]).sum();
            }
        }
        g
    }

    #[test]
    fn jacobi_eigenpairs_satisfy_a_v_equals_lambda_v() {
        let n = 7;
        let x = random(n, n, 1);
        let a: Vec<f64> = (0..n * n).map(|k| x[k] + x[(k % n) * n + k / n]).collect();
        let (vals, vecs) = symmetric_eigen(&a, n);
        assert!(vals.windows(2).all(|w| w[0] <= w[1]), "ascending");
        for j in 0..n {
            for i in 0..n {
                let av: f64 = (0..n).map(|k| a[i * n + k] * vecs[k * n + j]).sum();
                assert!((av - vals[j] * vecs[i * n + j]).abs() < 1e-12, "{av}");
            }
        }
        let trace: f64 = (0..n).map(|i| a[i * n + i]).sum();
        assert!((vals.iter().sum::<f64>() - trace).abs() < 1e-12);
    }

    #[test]
    fn singular_values_are_the_roots_of_the_gram_eigenvalues_and_rebuild_the_matrix() {
        for (rows, cols) in [(6, 4), (3, 8), (5, 5), (1, 3)] {
            let a = random(rows, cols, rows as u64 * 10 + cols as u64);
            let s = svd(&a, rows, cols);
            let r = rows.min(cols);
            assert_eq!(s.values.len(), r);
            assert!(s.values.windows(2).all(|w| w[0] >= w[1]), "descending");
            let (mut eig, _) = symmetric_eigen(&gram(&a, rows, cols), cols);
            eig.reverse();
            for (j, e) in eig.iter().enumerate().take(r) {
                let want = e.max(0.0).sqrt();
                assert!(
                    (s.values[j] - want).abs() < 1e-10,
                    "{rows}×{cols} σ_{j}: {} vs {want}",
                    s.values[j]
                );
            }
            for i in 0..rows {
                for j in 0..cols {
                    let x: f64 = (0..r)
                        .map(|k| s.u[i * r + k] * s.values[k] * s.v[j * r + k])
                        .sum();
                    assert!((x - a[i * cols + j]).abs() < 1e-12, "U Σ Vᵀ = A");
                }
            }
        }
    }

    #[test]
    fn lanczos_finds_the_second_eigenvalue_of_a_matrix_with_a_known_top_eigenvector() {
        let n = 40;
        let (vals, vecs) = symmetric_eigen(&gram(&random(60, n, 3), 60, n), n);
        let top: Vec<f64> = (0..n).map(|k| vecs[k * n + n - 1]).collect();
        let a = gram(&random(60, n, 3), 60, n);
        let got = lanczos_largest(
            n,
            |x, y| {
                for i in 0..n {
                    y[i] = (0..n).map(|k| a[i * n + k] * x[k]).sum();
                }
            },
            &top,
            &random(1, n, 9),
            200,
            1e-14,
        );
        assert!(
            (got.value - vals[n - 2]).abs() < 1e-9 * vals[n - 2],
            "{} vs {}",
            got.value,
            vals[n - 2]
        );
    }

    #[test]
    fn tridiagonal_bisection_matches_jacobi() {
        let alpha = [1.0, -2.0, 3.5, 0.25];
        let beta = [0.5, 1.5, -0.75];
        let mut a = vec![0.0; 16];
        for i in 0..4 {
            a[i * 4 + i] = alpha[i];
        }
        for i in 0..3 {
            a[i * 4 + i + 1] = beta[i];
            a[(i + 1) * 4 + i] = beta[i];
        }
        let (vals, _) = symmetric_eigen(&a, 4);
        assert!((tridiagonal_largest(&alpha, &beta) - vals[3]).abs() < 1e-13);
    }
}
