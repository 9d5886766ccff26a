// Exact answers for the leaky-ReLU RBM (docs/methods/models.md#leaky):
//   log p*(v) = -|v|^2/2 + b'v + sum_j alpha_j eta_j^2/2,  eta = W'v + c,  alpha_j = 1 (eta_j > 0) or cL.
// Closed forms at leakiness 1 (a Gaussian) and for b = c = 0 with orthogonal columns; quadrature
// for one or two visible units; exact samples by rejection from the leakiness-1 envelope.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <queue>
#include <sstream>
#include <vector>

#include "core/exact/enumeration.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {
namespace exact_detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSqrt2 = 1.41421356237309504880;

// log(1 - e^x) for x <= 0.
double log1mexp(double x) { return x > -0.6931471805599453 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x)); }

// log P(N(0,1) > z), accurate far into the upper tail.
double log_upper_tail(double z) {
    if (z == kInf) return -kInf;
    if (z < 30) return std::log(0.5 * std::erfc(z / kSqrt2));
    // Q(z) = phi(z)/z (1 - 1/z^2 + 3/z^4 - ...): relative error below 1e-16 for z >= 30.
    const double iz2 = 1.0 / (z * z);
    double term = 1, sum = 1;
    for (int k = 1; k <= 8; ++k) {
        term *= -(2.0 * k - 1.0) * iz2;
        sum += term;
    }
    return -0.5 * z * z - std::log(z) - 0.5 * kLog2Pi + std::log(sum);
}

// log(Phi(z2) - Phi(z1)) for z1 < z2 (either may be infinite), without cancellation in the tails.
double log_normal_mass(double z1, double z2) {
    if (!(z1 < z2)) return -kInf;
    if (z1 >= 0) {
        const double l1 = log_upper_tail(z1), l2 = log_upper_tail(z2);
        return l1 + log1mexp(l2 - l1);
    }
    if (z2 <= 0) return log_normal_mass(-z2, -z1);
    return std::log(0.5 * (std::erf(z2 / kSqrt2) + std::erf(-z1 / kSqrt2)));
}

// log of an integral of an unnormalized density, and the first two moments of x under it.
struct Piece {
    double log_mass = -kInf, m1 = 0, m2 = 0;
};

// Combines pieces (disjoint parts of one integral) into one.
Piece combine(const std::vector<Piece>& parts) {
    Piece out;
    for (const Piece& p : parts) out.log_mass = std::max(out.log_mass, p.log_mass);
    if (out.log_mass == -kInf) return out;
    double s = 0, s1 = 0, s2 = 0;
    for (const Piece& p : parts) {
        if (p.log_mass == -kInf) continue;
        const double w = std::exp(p.log_mass - out.log_mass);
        s += w;
        s1 += w * p.m1;
        s2 += w * p.m2;
    }
    out.log_mass += std::log(s);
    out.m1 = s1 / s;
    out.m2 = s2 / s;
    return out;
}

// Integral of exp(-a x^2/2 + beta x + gamma) over [lo, hi] (a > 0), through the truncated normal
// with mean mu = beta/a and sd 1/sqrt(a): E z = (phi(z1) - phi(z2))/D, E z^2 = 1 + (z1 phi(z1) - z2 phi(z2))/D.
Piece gaussian_piece(double a, double beta, double gamma, double lo, double hi) {
    const double mu = beta / a, sa = std::sqrt(a);
    const double z1 = lo == -kInf ? -kInf : sa * (lo - mu);
    const double z2 = hi == kInf ? kInf : sa * (hi - mu);
    const double ld = log_normal_mass(z1, z2);
    Piece p;
    if (ld == -kInf) return p;
    p.log_mass = gamma + 0.5 * beta * mu + 0.5 * (kLog2Pi - std::log(a)) + ld;
    const auto ratio = [&](double z) { return std::isinf(z) ? 0.0 : std::exp(-0.5 * z * z - 0.5 * kLog2Pi - ld); };
    const double r1 = ratio(z1), r2 = ratio(z2);
    const double ez = r1 - r2;
    const double ez2 = 1.0 + (r1 != 0 ? z1 * r1 : 0.0) - (r2 != 0 ? z2 * r2 : 0.0);
    p.m1 = mu + ez / sa;
    p.m2 = mu * mu + 2.0 * mu * ez / sa + ez2 / a;
    return p;
}

// Integral over the real line of exp(-x^2/2 + b x + g0 + sum_j alpha_j(eta_j) eta_j^2/2) with
// eta_j = s_j x + o_j: between consecutive zeros of the eta_j every alpha_j is fixed and the
// integrand is Gaussian, with a = 1 - sum alpha_j s_j^2 > 0 (singular values of W < 1).
Piece integrate_line(double b, double g0, const Vec& s, const Vec& o, double cl) {
    std::vector<double> edges{-kInf};
    for (Index j = 0; j < s.size(); ++j)
        if (s(j) != 0) edges.push_back(-o(j) / s(j));
    std::sort(edges.begin() + 1, edges.end());
    edges.push_back(kInf);
    std::vector<Piece> parts;
    parts.reserve(edges.size());
    for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
        const double lo = edges[k], hi = edges[k + 1];
        if (!(hi > lo)) continue;
        const double rep = lo == -kInf ? (hi == kInf ? 0.0 : hi - (1.0 + std::fabs(hi)))
                                       : (hi == kInf ? lo + (1.0 + std::fabs(lo)) : 0.5 * (lo + hi));
        double a = 1.0, beta = b, gamma = g0;
        for (Index j = 0; j < s.size(); ++j) {
            const double al = s(j) * rep + o(j) > 0 ? 1.0 : cl;
            a -= al * s(j) * s(j);
            beta += al * s(j) * o(j);
            gamma += 0.5 * al * o(j) * o(j);
        }
        parts.push_back(gaussian_piece(a, beta, gamma, lo, hi));
    }
    return combine(parts);
}

// log Z, mean and covariance of the Gaussian exp(-v'Pv/2 + l'v + k).
struct GaussianForm {
    double log_z = 0;
    Vec mean;
    Mat cov;
};
GaussianForm gaussian_form(const Mat& P, const Vec& l, double k) {
    Eigen::LLT<Mat> llt(P);
    if (llt.info() != Eigen::Success)
        throw InputError("leaky RBM: I - W W' is not positive definite (singular values of W must be < 1)");
    GaussianForm g;
    g.mean = llt.solve(l);
    g.cov = llt.solve(Mat::Identity(P.rows(), P.cols()));
    const double logdet = 2.0 * Mat(llt.matrixL()).diagonal().array().log().sum();
    g.log_z = 0.5 * static_cast<double>(P.rows()) * kLog2Pi - 0.5 * logdet + 0.5 * l.dot(g.mean) + k;
    return g;
}

// The leakiness-1 envelope exp(-v'(I-WW')v/2 + (b+Wc)'v + |c|^2/2) >= p*(v) (alpha <= 1).
GaussianForm envelope(const Leaky& m) {
    const Index n = m.n_visible();
    return gaussian_form(Mat::Identity(n, n) - m.W * m.W.transpose(), m.b + m.W * m.c, 0.5 * m.c.squaredNorm());
}

// The model in coordinates x = v - mu centred on the envelope mean mu:
//   log p*(mu + x) = k0 - |x|^2/2 + b'x + sum alpha_j eta_j^2/2,  eta = W'x + c,
// with b = b0 - mu, c = c0 + W'mu, k0 = b0'mu - |mu|^2/2. There b + W c = 0, so the envelope
// peaks at x = 0 with height |c|^2/2.
struct Centred {
    Vec mu, b, c;
    double k0 = 0;
    Mat env_cov;
};
Centred centre(const Leaky& m) {
    const GaussianForm env = envelope(m);
    Centred z;
    z.mu = env.mean;
    z.b = m.b - z.mu;
    z.c = m.c + m.W.transpose() * z.mu;
    z.k0 = m.b.dot(z.mu) - 0.5 * z.mu.squaredNorm();
    z.env_cov = env.cov;
    return z;
}

// ---- adaptive Gauss-Kronrod (G7-K15) over a vector of integrands ----
constexpr std::array<double, 8> kXgk{0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                                     0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                                     0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                                     0.207784955007898467600689403773245, 0.0};
constexpr std::array<double, 8> kWgk{0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                                     0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                                     0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                                     0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
constexpr std::array<double, 4> kWg{0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                                    0.381830050505118944950369775488975, 0.417959183673469387755102040816327};

constexpr int kComponents = 6;
using Values = std::array<double, kComponents>;

struct Panel {
    double a, b;
    Values value, error;
};

template <class F>
Panel gk15(F& f, double a, double b) {
    const double c = 0.5 * (a + b), h = 0.5 * (b - a);
    Values k{}, g{};
    for (int i = 0; i < 8; ++i) {
        const int npts = i == 7 ? 1 : 2;
        for (int sgn = 0; sgn < npts; ++sgn) {
            const Values v = f(c + (sgn ? -1.0 : 1.0) * h * kXgk[static_cast<std::size_t>(i)]);
            for (int q = 0; q < kComponents; ++q) {
                k[q] += kWgk[static_cast<std::size_t>(i)] * v[q];
                if (i % 2 == 1) g[q] += kWg[static_cast<std::size_t>(i / 2)] * v[q];
            }
        }
    }
    Panel p{a, b, {}, {}};
    for (int q = 0; q < kComponents; ++q) {
        p.value[q] = h * k[q];
        p.error[q] = std::fabs(h * (k[q] - g[q]));
    }
    return p;
}

// Integrates f over [breaks.front(), breaks.back()], split at every break, bisecting the panel
// with the largest weighted error until every component's total error is below tol times its
// scale: the sum of |panel integrals| (which stays meaningful when a moment integrates to about
// zero), at least |total_0| * length^order[q]. Panels wait in a priority queue keyed by their
// error weighted with the scales of the initial panels; a panel whose weighted error is at
// rounding level is not split further.
template <class F>
Values adaptive_integral(F f, const std::vector<double>& breaks, const std::array<int, kComponents>& order,
                         double length, double tol = 1e-12, int max_panels = 100000) {
    std::vector<Panel> panels;
    for (std::size_t k = 0; k + 1 < breaks.size(); ++k)
        if (breaks[k + 1] > breaks[k]) panels.push_back(gk15(f, breaks[k], breaks[k + 1]));
    Values err{}, total{}, magnitude{};
    const auto account = [&](const Panel& p, double sign) {
        for (int q = 0; q < kComponents; ++q) {
            err[q] += sign * p.error[q];
            total[q] += sign * p.value[q];
            magnitude[q] += sign * std::fabs(p.value[q]);
        }
    };
    for (const Panel& p : panels) account(p, 1.0);
    const auto scale = [&](int q) {
        return std::max(
            {magnitude[q], std::fabs(total[0]) * std::pow(length, order[q]), std::numeric_limits<double>::min()});
    };
    Values weight{};
    for (int q = 0; q < kComponents; ++q) weight[q] = 1.0 / scale(q);
    std::priority_queue<std::pair<double, std::size_t>> queue;
    const auto enqueue = [&](std::size_t slot) {
        double key = 0;
        for (int q = 0; q < kComponents; ++q) key = std::max(key, panels[slot].error[q] * weight[q]);
        queue.emplace(key, slot);
    };
    for (std::size_t k = 0; k < panels.size(); ++k) enqueue(k);
    while (!queue.empty() && static_cast<int>(panels.size()) < max_panels) {
        bool done = true;
        for (int q = 0; q < kComponents; ++q) done = done && err[q] <= tol * scale(q);
        // Done, or every remaining panel error is at rounding level of the whole integral.
        if (done || queue.top().first < 4 * std::numeric_limits<double>::epsilon()) break;
        const std::size_t worst = queue.top().second;
        queue.pop();
        const Panel p = panels[worst];
        const double mid = 0.5 * (p.a + p.b);
        if (!(mid > p.a && mid < p.b)) continue;  // cannot split further
        account(p, -1.0);
        panels[worst] = gk15(f, p.a, mid);
        panels.push_back(gk15(f, mid, p.b));
        account(panels[worst], 1.0);
        account(panels.back(), 1.0);
        enqueue(worst);
        enqueue(panels.size() - 1);
    }
    total = Values{};  // summed afresh, in panel order
    for (const Panel& p : panels)
        for (int q = 0; q < kComponents; ++q) total[q] += p.value[q];
    return total;
}

// Quadrature result in the centred frame: log of the integral, E[x], E[xx'].
struct QuadResult {
    double log_z = 0;
    Vec mean;
    Mat second;
};

QuadResult quadrature_1d(const Leaky& m, const Centred& z) {
    const Piece p = integrate_line(z.b(0), 0.0, m.W.row(0).transpose(), z.c, m.leakiness);
    QuadResult r;
    r.log_z = p.log_mass;
    r.mean = Vec::Constant(1, p.m1);
    r.second = Mat::Constant(1, 1, p.m2);
    return r;
}

// Two visible units: for each x1 the x2-integral g(x1) is exact (integrate_line); the
// x1-integral is adaptive Gauss-Kronrod, split wherever two lines eta_j = 0 cross or a line is
// vertical (there g is not smooth), and into initial panels no wider than 2: in every region p*
// is Gaussian with precision I - W diag(alpha) W' <= I, so no feature is narrower than sd 1 and
// none can hide between the first nodes.
QuadResult quadrature_2d(const Leaky& m, const Centred& z) {
    const double cl = m.leakiness;
    const Vec w1 = m.W.row(0).transpose(), w2 = m.W.row(1).transpose();
    const Index k = m.n_hidden();

    Vec offsets(k);
    const auto inner = [&](double x1) {
        offsets = w1 * x1 + z.c;
        return integrate_line(z.b(1), -0.5 * x1 * x1 + z.b(0) * x1, w2, offsets, cl);
    };

    // Where the mass is: g_cL(x1) <= g(x1) <= g_1(x1), the x1-marginals of the leakiness-cL and
    // leakiness-1 Gaussians (alpha in [cL, 1]). Probe g at spacing 1 wherever g_1 reaches within
    // 45 nats of the peak of g_cL; the largest probe (ref) keeps the integrands O(1), and the
    // range keeps every x1 where g_1 reaches within 45 nats of ref (the rest is < e^-45 Z).
    const Index n = 2;
    const Mat WWt = m.W * m.W.transpose();
    const double height = 0.5 * z.c.squaredNorm();  // log of the envelope's peak (at x = 0)
    const GaussianForm g1 = gaussian_form(Mat::Identity(n, n) - WWt, Vec::Zero(n), height);
    const GaussianForm gcl = gaussian_form(Mat::Identity(n, n) - cl * WWt, z.b + cl * m.W * z.c, cl * height);
    const double s1 = std::sqrt(g1.cov(0, 0));
    const double g1_peak = g1.log_z - 0.5 * (kLog2Pi + 2 * std::log(s1));
    const double gcl_peak = gcl.log_z - 0.5 * (kLog2Pi + std::log(gcl.cov(0, 0)));
    const auto reach = [&](double level) { return s1 * std::sqrt(2.0 * std::max(0.0, g1_peak - level)); };
    const double probe_range = std::max(12 * s1, reach(gcl_peak - 45));
    if (probe_range > 2e5) {
        std::ostringstream os;
        os.precision(4);
        os << "quadrature for this leaky RBM cannot locate its mass: its leakiness-1 envelope exceeds its "
              "leakiness-"
           << cl << " lower bound by " << (g1.log_z - gcl.log_z)
           << " nats (extreme biases?); use AIS (--path leaky) instead";
        throw InputError(os.str());
    }
    double ref = -kInf;
    const int probes = static_cast<int>(std::ceil(probe_range));
    for (int p = -probes; p <= probes; ++p) ref = std::max(ref, inner(p * probe_range / probes).log_mass);
    const double R = std::max(12 * s1, reach(ref - 45));

    std::vector<double> breaks{-R, R};
    const int panels = static_cast<int>(std::ceil(R));
    for (int p = 1; p < 2 * panels; ++p) breaks.push_back(-R + p * (R / panels));
    for (Index j = 0; j < k; ++j) {
        if (w2(j) == 0 && w1(j) != 0) breaks.push_back(-z.c(j) / w1(j));
        for (Index i = 0; i < j; ++i) {
            const double det = w1(i) * w2(j) - w1(j) * w2(i);
            if (det != 0) breaks.push_back((-z.c(i) * w2(j) + z.c(j) * w2(i)) / det);
        }
    }
    std::sort(breaks.begin(), breaks.end());
    breaks.erase(std::remove_if(breaks.begin(), breaks.end(), [&](double x) { return !(x >= -R && x <= R); }),
                 breaks.end());
    breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
    for (double x : breaks) ref = std::max(ref, inner(x).log_mass);

    const auto integrand = [&](double x1) {
        const Piece p = inner(x1);
        const double e = p.log_mass == -kInf ? 0.0 : std::exp(p.log_mass - ref);
        return Values{e, x1 * e, x1 * x1 * e, e * p.m1, x1 * e * p.m1, e * p.m2};
    };
    const double sd = std::sqrt(z.env_cov.diagonal().maxCoeff());
    const Values I = adaptive_integral(integrand, breaks, {0, 1, 2, 1, 2, 2}, sd);
    bool finite = std::isfinite(ref) && I[0] > 0;
    for (double v : I) finite = finite && std::isfinite(v);
    if (!finite)
        throw InputError(
            "quadrature for this leaky RBM failed (its density under- or overflows on the "
            "integration range); use AIS (--path leaky) instead");
    QuadResult r;
    r.log_z = ref + std::log(I[0]);
    r.mean = Vec(2);
    r.mean << I[1] / I[0], I[3] / I[0];
    r.second = Mat(2, 2);
    r.second << I[2] / I[0], I[4] / I[0], I[4] / I[0], I[5] / I[0];
    return r;
}

QuadResult quadrature(const Leaky& m, const Centred& z) {
    if (m.n_visible() == 1) return quadrature_1d(m, z);
    if (m.n_visible() == 2) return quadrature_2d(m, z);
    throw InputError("quadrature for a leaky RBM needs 1 or 2 visible units, this one has " +
                     std::to_string(m.n_visible()));
}

// Orthogonal case: along u_j = W_j/|W_j| the density is two half-normals with sd
// s1 = (1-|W_j|^2)^(-1/2) (eta_j > 0) and s2 = (1-cL|W_j|^2)^(-1/2); other directions N(0,1).
struct HalfNormals {
    double s1, s2;
    double log_z() const { return 0.5 * kLog2Pi + std::log(0.5 * (s1 + s2)); }
    double mean() const { return std::sqrt(2.0 / std::numbers::pi) * (s1 - s2); }
    double second() const { return s1 * s1 - s1 * s2 + s2 * s2; }
};
HalfNormals half_normals(double norm2, double cl) {
    return {1.0 / std::sqrt(1.0 - norm2), 1.0 / std::sqrt(1.0 - cl * norm2)};
}

std::string no_exact_method(const Leaky& m, const char* what) {
    std::ostringstream os;
    os << what << " of a leaky RBM is available only at leakiness 1 (a Gaussian), when b = 0, c = 0 and the "
       << "columns of W are mutually orthogonal (closed form), or with 1 or 2 visible units (quadrature); this "
       << "model has " << m.n_visible() << " visible units and leakiness " << m.leakiness << ": use AIS (--path leaky)";
    return os.str();
}

}  // namespace

bool leaky_has_exact_log_z(const Leaky& m) {
    return m.leakiness == 1.0 || m.n_visible() <= 2 || leaky_is_orthogonal_case(m);
}

double leaky_log_z(const Leaky& m) {
    if (m.leakiness == 1.0) return leaky_log_z_gaussian_case(m);
    if (leaky_is_orthogonal_case(m)) return leaky_log_z_orthogonal(m);
    if (m.n_visible() <= 2) return leaky_log_z_quadrature(m);
    throw InputError(no_exact_method(m, "exact log Z"));
}

Moments leaky_visible_moments(const Leaky& m) {
    if (m.leakiness == 1.0) {
        const GaussianForm g = envelope(m);
        return {g.mean, g.cov};
    }
    if (leaky_is_orthogonal_case(m)) {
        const Index n = m.n_visible();
        Moments out{Vec::Zero(n), Mat::Identity(n, n)};
        for (Index j = 0; j < m.n_hidden(); ++j) {
            const double norm2 = m.W.col(j).squaredNorm();
            if (norm2 == 0) continue;
            const Vec u = m.W.col(j) / std::sqrt(norm2);
            const HalfNormals h = half_normals(norm2, m.leakiness);
            out.mean += h.mean() * u;
            out.cov += (h.second() - h.mean() * h.mean() - 1.0) * u * u.transpose();
        }
        return out;
    }
    if (m.n_visible() <= 2) {
        const Centred z = centre(m);
        const QuadResult q = quadrature(m, z);
        Moments out;
        out.mean = z.mu + q.mean;
        out.cov = q.second - q.mean * q.mean.transpose();
        out.cov = 0.5 * (out.cov + out.cov.transpose());
        return out;
    }
    throw InputError(no_exact_method(m, "the exact mean and covariance"));
}

// Rejection from the envelope N(mu, (I-WW')^-1): accept with p*(v)/envelope(v) =
// exp(sum_{eta_j <= 0} (cL-1) eta_j^2/2) <= 1, exact for any n. The acceptance rate is Z/Z_1.
RowMat leaky_samples(const Leaky& m, Index count, std::uint64_t seed) {
    const Index n = m.n_visible(), k = m.n_hidden();
    RowMat V(count, n);
    if (count == 0) return V;
    const double cl = m.leakiness;
    const GaussianForm env = envelope(m);
    const Mat L = Eigen::LLT<Mat>(env.cov).matrixL();
    const auto propose = [&](Rng& rng, Vec& v, double& log_accept) {
        Vec zv(n);
        for (Index i = 0; i < n; ++i) zv(i) = rng.normal();
        v = env.mean + L * zv;
        const Vec eta = m.W.transpose() * v + m.c;
        log_accept = 0;
        for (Index j = 0; j < k; ++j)
            if (eta(j) <= 0) log_accept += 0.5 * (cl - 1.0) * eta(j) * eta(j);
    };
    // Acceptance rate: exact when log Z is, else measured on a pilot stream no chain uses.
    double rate = 0;
    std::string how;
    bool exact_rate = false;
    if (leaky_has_exact_log_z(m)) {
        try {
            rate = std::exp(leaky_log_z(m) - env.log_z);
            how = "exactly Z/Z_1";
            exact_rate = true;
        } catch (const InputError&) {
            // quadrature refused (extreme biases): measure instead
        }
    }
    if (!exact_rate) {
        Rng pilot(seed, (static_cast<std::uint64_t>(StreamPurpose::Exact) << 48) + (std::uint64_t(1) << 47));
        const int trials = 4000;
        int accepted = 0;
        Vec v;
        double la = 0;
        for (int t = 0; t < trials; ++t) {
            propose(pilot, v, la);
            if (std::log(pilot.uniform()) < la) ++accepted;
        }
        rate = static_cast<double>(accepted) / trials;
        how = "measured on " + std::to_string(trials) + " proposals";
    }
    const double min_rate = 1e-4;
    if (!(rate >= min_rate)) {
        std::ostringstream os;
        os.precision(3);
        os << "exact samples of this leaky RBM come from rejection sampling under its leakiness-1 Gaussian "
           << "envelope, whose acceptance rate here is " << rate << " (" << how << "), below " << min_rate
           << ": too slow; run Gibbs chains (exact-mh kernel) instead";
        throw InputError(os.str());
    }
    const double max_attempts = 1000.0 + 200.0 / rate;  // exceeded with probability < e^-200
    ChainRngs rngs(seed, count, StreamPurpose::Exact);
    for_each_block(count, [&](Index begin, Index end) {
        Vec v;
        double la = 0;
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (double attempt = 0;; ++attempt) {
                if (attempt >= max_attempts)
                    throw InputError("leaky RBM rejection sampling gave up after " + std::to_string(attempt) +
                                     " proposals for one sample");
                propose(rng, v, la);
                if (std::log(rng.uniform()) < la) break;
            }
            V.row(r) = v.transpose();
        }
    });
    return V;
}

}  // namespace exact_detail

using namespace exact_detail;

// log Z_1 = (n/2) log 2pi - log det(I-WW')/2 + (b+Wc)'(I-WW')^-1(b+Wc)/2 + |c|^2/2 (docs/methods/models.md).
double leaky_log_z_gaussian_case(const Leaky& m) { return envelope(m).log_z; }

bool leaky_is_orthogonal_case(const Leaky& m, double tol) {
    if (m.b.cwiseAbs().maxCoeff() > tol || (m.c.size() && m.c.cwiseAbs().maxCoeff() > tol)) return false;
    const Mat G = m.W.transpose() * m.W;
    for (Index i = 0; i < G.rows(); ++i)
        for (Index j = 0; j < i; ++j)
            if (std::fabs(G(i, j)) > tol * std::max(1.0, std::sqrt(G(i, i) * G(j, j)))) return false;
    return true;
}

// log Z = (n/2) log 2pi + sum_j log((1/2)[(1-|W_j|^2)^(-1/2) + (1-cL|W_j|^2)^(-1/2)]) (docs/methods/models.md).
double leaky_log_z_orthogonal(const Leaky& m) {
    if (!leaky_is_orthogonal_case(m))
        throw InputError(
            "the orthogonal closed form for a leaky RBM needs b = 0, c = 0 and mutually orthogonal "
            "columns of W");
    double lz = 0.5 * static_cast<double>(m.n_visible()) * kLog2Pi;
    for (Index j = 0; j < m.n_hidden(); ++j) {
        const HalfNormals h = half_normals(m.W.col(j).squaredNorm(), m.leakiness);
        lz += h.log_z() - 0.5 * kLog2Pi;
    }
    return lz;
}

double leaky_log_z_quadrature(const Leaky& m) {
    const Centred z = centre(m);
    return z.k0 + quadrature(m, z).log_z;
}

}  // namespace rbm
