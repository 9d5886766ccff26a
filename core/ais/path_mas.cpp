// Moment-averaged spline path "MAS" (Grosse, Maddison & Salakhutdinov 2013; docs/methods/annealing-paths.md#mas) for
// GRBMs (sigma and hidden values fixed) and BRBMs, seen as exponential families p_eta ∝ base(v) exp(eta'g):
//   g = (v, h, vec(v h'))   (vec column-major: entry i + n j is v_i h_j)
//   GRBM: eta = (b/sigma^2, c, W_ij/sigma_i), base(v) = exp(-sum v^2/(2 sigma^2)), because
//         -E(v,h) = -sum v^2/(2 sigma^2) + (b/sigma^2)'v + c'h + sum_ij v_i (W_ij/sigma_i) h_j - sum b^2/(2 sigma^2);
//   BRBM: eta = (b, c, W), base = 1.
// Knots beta_r get eta_r with E_{eta_r}[g] = (1 - beta_r) s_A + beta_r s_B (maximize eta's - log Z_ef(eta),
// concave, gradient s - E_eta[g]); between knots eta is linear in beta (geometric segments). Every
// intermediate distribution is an RBM of the family, so the kernel is its block Gibbs sweep.
// The family and the knot fits are in mas_family.hpp and mas_knots.cpp; this file is the path.
#include "core/ais/mas_knots.hpp"

namespace rbm {

namespace {

using namespace mas;

// ---------------- the path ----------------

bool zero_weights(const Params& p) { return p.W.isZero(0.0); }

// softplus(x) - softplus(y) without cancelling the linear parts of large arguments.
double softplus_difference(double x, double y) {
    if (x > 0 && y > 0) return (x - y) + std::log1p(std::exp(-x)) - std::log1p(std::exp(-y));
    return softplus(x) - softplus(y);
}

class MasPath final : public AnnealingPath {
public:
    MasPath(const Model& target, const Model& base, const MasOptions& opts) : fam_(target) {
        validate(target);
        validate(base);
        check_compatible(target, base);
        check_options(opts);
        const Params pa = fam_.params_of(base), pb = fam_.params_of(target);
        base_zero_ = zero_weights(pa);
        hidden_.hidden_values = fam_.values;
        if (!base_zero_ && !fam_.enumerable)
            throw InputError("moments path: the base model has nonzero weights and is too large to enumerate (" +
                             describe_size() + "); use a zero-weight base");

        // Endpoint moments.
        Vec s_a, s_b;
        if (base_zero_) {
            s_a = independent_moments(pa);
            log_z0_ = independent_log_z(pa);
        } else {
            const EnumMoments em = enumerate_moments(fam_, pa);
            s_a = em.s;
            log_z0_ = em.log_z;
        }
        ChainRngs rngs;
        RowMat V;
        if (fam_.enumerable) {
            s_b = enumerate_moments(fam_, pb).s;
        } else {
            rngs = ChainRngs(opts.seed, opts.pcd_chains, StreamPurpose::Moments);
            V.resize(opts.pcd_chains, fam_.n);
            draw_independent(pa, V, 0, V.rows(), rngs);
            for (int t = 0; t < kTargetBurnIn; ++t) {
                throw_if_cancelled(opts);
                sweep(fam_, pb, V, rngs, 1);
            }
            s_b = Vec::Zero(fam_.dim());
            for (int t = 0; t < kTargetSweeps; ++t) {
                throw_if_cancelled(opts);
                sweep(fam_, pb, V, rngs, 1);
                s_b += rb_moments(fam_, pb, V);
            }
            s_b /= kTargetSweeps;
            // The fit starts from base samples again (the chains follow eta from the base).
            draw_independent(pa, V, 0, V.rows(), rngs);
        }

        knots_.push_back({0.0, fam_.eta(pa), s_a});
        Vec eta = knots_.back().eta;
        double worst = 0;
        int iterations = 0;
        bool all_converged = true;
        for (double beta : opts.knots) {
            const Vec s = (1.0 - beta) * s_a + beta * s_b;
            const FitResult fit =
                fam_.enumerable ? fit_exact(fam_, s, eta, opts) : fit_pcd(fam_, s, eta, opts, V, rngs);
            eta = fit.eta;
            worst = std::max(worst, fit.grad_norm);
            iterations += fit.iterations;
            all_converged = all_converged && fit.converged;
            knots_.push_back({beta, eta, s});
        }
        knots_.push_back({1.0, fam_.eta(pb), s_b});
        for (const Knot& k : knots_) params_.push_back(fam_.params(k.eta));
        params_.front() = pa;  // exact endpoints, not round-tripped through eta
        params_.back() = pb;
        cost_ = 0.5 * (knots_.back().eta - knots_.front().eta).dot(knots_.back().s - knots_.front().s);

        std::ostringstream os;
        os.precision(3);
        if (fam_.enumerable) {
            os << "moments by exact enumeration (" << describe_size() << "); knot fits "
               << (all_converged ? "converged" : "NOT converged") << " (largest |s - E[g]| " << worst << ", "
               << iterations << " L-BFGS iterations)";
        } else {
            os << "moments by PCD (" << opts.pcd_chains << " chains, " << opts.pcd_steps << " sweeps per update, "
               << opts.max_iterations << " updates per knot; mean |s - E[g]| over the last half " << worst
               << "); target moments from the same chains after " << kTargetBurnIn << " burn-in sweeps, averaged over "
               << kTargetSweeps << " sweeps (Rao-Blackwellized); " << describe_size() << " is too many to enumerate";
        }
        notes_ = os.str();
    }

    std::string name() const override {
        return "moment-averaged spline (MAS, " + std::to_string(knots_.size() - 2) + " knots)";
    }
    std::string notes() const override { return notes_; }
    Index dim() const override { return fam_.n; }
    double log_z0() const override { return log_z0_; }
    std::vector<Knot> knots() const override { return knots_; }
    double cost_functional() const override { return cost_; }
    bool can_sample_exactly() const override { return fam_.enumerable; }

    void sample_base(RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (base_zero_) draw_independent(params_.front(), X, begin, end, rngs);
        else sample_exact(0.0, X, begin, end, rngs);
    }

    void log_f(double beta, const RowMat& X, Index begin, Index end, Vec& out) const override {
        const Params p = at(beta);
        const RowMat V = X.middleRows(begin, end - begin);
        out.segment(begin, end - begin) =
            fam_.grbm ? fam_.grbm_model(p).log_unnorm(V) : fam_.brbm_model(p).log_unnorm(V);
    }

    void transition(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        const Params p = at(beta);
        const RowMat A = fields(p, X, begin, end);
        gibbs_step(p, A, X, begin, rngs);
    }

    // Both fields (previous and current parameters) come from the same rows; the current one
    // also drives the hidden draw.
    void advance(double beta_prev, double beta, RowMat& X, Index begin, Index end, Vec& lw,
                 ChainRngs& rngs) const override {
        const Params p0 = at(beta_prev), p1 = at(beta);
        const RowMat A0 = fields(p0, X, begin, end), A1 = fields(p1, X, begin, end);
        for (Index r = 0; r < end - begin; ++r) {
            const auto v = X.row(begin + r);
            double s = 0;
            if (fam_.grbm) {
                // -(v-b1)^2/(2s^2) + (v-b0)^2/(2s^2) = (b1-b0)(2v-b1-b0)/(2s^2), without cancellation
                for (Index i = 0; i < fam_.n; ++i)
                    s += (p1.b(i) - p0.b(i)) * (2 * v(i) - p1.b(i) - p0.b(i)) / (2 * fam_.sigma(i) * fam_.sigma(i));
                for (Index j = 0; j < fam_.m; ++j) s += phi(A1(r, j)) - phi(A0(r, j));
            } else {
                for (Index i = 0; i < fam_.n; ++i) s += (p1.b(i) - p0.b(i)) * v(i);
                for (Index j = 0; j < fam_.m; ++j) s += softplus_difference(A1(r, j), A0(r, j));
            }
            lw(begin + r) += s;
        }
        gibbs_step(p1, A1, X, begin, rngs);
    }

    // Exact draws by enumeration of the smaller layer; one table per beta, shared by the blocks.
    void sample_exact(double beta, RowMat& X, Index begin, Index end, ChainRngs& rngs) const override {
        if (!fam_.enumerable) AnnealingPath::sample_exact(beta, X, begin, end, rngs);
        const auto table = tables_.get(beta, [this](double b) { return build_table(b); });
        const Params& p = table->p;
        const Index rows = end - begin, len = fam_.layer();
        RowMat L(rows, len);
        Vec x(len);
        for (Index r = 0; r < rows; ++r) {
            fam_.decode(table->dist.draw(rngs[begin + r]), x);
            L.row(r) = x.transpose();
        }
        if (fam_.grbm) {
            grbm_sample_visible(fam_.grbm_model(p), L, 1.0, nullptr, X, begin, rngs);
        } else if (fam_.enum_visible) {
            X.middleRows(begin, rows) = L;
        } else {
            sample_visible_brbm(p, L, X, begin, rngs);
        }
    }

private:
    struct Table {
        Params p;
        detail::CategoricalTable dist;  // over the configurations of the enumerated layer
    };

    // log sum_{x in X} exp(a x): the hidden log-partition of the family.
    double phi(double a) const { return fam_.grbm ? hidden_.log_partition_hidden(a) : softplus(a); }

    Table build_table(double beta) const {
        Table t;
        t.p = at(beta);
        Vec B;
        Mat J;
        if (fam_.grbm) {
            B = t.p.c + t.p.W.transpose() * t.p.b.cwiseQuotient(fam_.sigma);
            J = t.p.W.transpose() * t.p.W;
        }
        std::vector<double> lw;
        config_log_weights(fam_, t.p, B, J, 0, static_cast<Index>(fam_.configs), lw);
        t.dist =
            detail::CategoricalTable::from_log_weights(Eigen::Map<const Vec>(lw.data(), static_cast<Index>(lw.size())));
        return t;
    }

    // Parameters at beta: linear in eta between the knots around it.
    Params at(double beta) const {
        if (beta <= 0) return params_.front();
        if (beta >= 1) return params_.back();
        std::size_t r = 0;
        while (r + 2 < knots_.size() && knots_[r + 1].beta <= beta) ++r;
        const double t = (beta - knots_[r].beta) / (knots_[r + 1].beta - knots_[r].beta);
        if (t == 0) return params_[r];
        return fam_.params((1.0 - t) * knots_[r].eta + t * knots_[r + 1].eta);
    }

    // Hidden pre-activations: GRBM lambda = c + W'(v/sigma), BRBM c + W'v.
    RowMat fields(const Params& p, const RowMat& X, Index begin, Index end) const {
        RowMat A;
        if (fam_.grbm) {
            grbm_hidden_field(fam_.grbm_model(p), X, begin, end, A);
        } else {
            A = X.middleRows(begin, end - begin) * p.W;
            A.rowwise() += p.c.transpose();
        }
        return A;
    }

    void gibbs_step(const Params& p, const RowMat& A, RowMat& X, Index begin, ChainRngs& rngs) const {
        RowMat H;
        if (fam_.grbm) {
            const Grbm g = fam_.grbm_model(p);
            grbm_sample_hidden(g, A, 1.0, H, rngs, begin);
            grbm_sample_visible(g, H, 1.0, nullptr, X, begin, rngs);
            return;
        }
        H.resize(A.rows(), A.cols());
        for (Index r = 0; r < A.rows(); ++r) {
            Rng& rng = rngs[begin + r];
            for (Index j = 0; j < A.cols(); ++j) H(r, j) = rng.uniform() < sigmoid(A(r, j)) ? 1.0 : 0.0;
        }
        sample_visible_brbm(p, H, X, begin, rngs);
    }

    void sample_visible_brbm(const Params& p, const RowMat& H, RowMat& X, Index begin, ChainRngs& rngs) const {
        RowMat A = H * p.W.transpose();
        A.rowwise() += p.b.transpose();
        for (Index r = 0; r < H.rows(); ++r) {
            Rng& rng = rngs[begin + r];
            for (Index i = 0; i < A.cols(); ++i) X(begin + r, i) = rng.uniform() < sigmoid(A(r, i)) ? 1.0 : 0.0;
        }
    }

    // Zero-weight models: v and h independent.
    Vec independent_moments(const Params& p) const {
        Vec s(fam_.dim());
        Vec eh(fam_.m), ev(fam_.n);
        if (fam_.grbm) {
            const Grbm g = fam_.grbm_model(p);
            for (Index j = 0; j < fam_.m; ++j) eh(j) = g.mean_hidden(p.c(j));
            ev = p.b;
        } else {
            for (Index j = 0; j < fam_.m; ++j) eh(j) = sigmoid(p.c(j));
            for (Index i = 0; i < fam_.n; ++i) ev(i) = sigmoid(p.b(i));
        }
        s.head(fam_.n) = ev;
        s.segment(fam_.n, fam_.m) = eh;
        Eigen::Map<Mat>(s.data() + fam_.n + fam_.m, fam_.n, fam_.m) = ev * eh.transpose();
        return s;
    }
    double independent_log_z(const Params& p) const {
        double z = 0;
        if (fam_.grbm) {
            const Grbm g = fam_.grbm_model(p);
            z = 0.5 * static_cast<double>(fam_.n) * kLog2Pi + fam_.sigma.array().log().sum();
            for (Index j = 0; j < fam_.m; ++j) z += g.log_partition_hidden(p.c(j));
        } else {
            for (Index i = 0; i < fam_.n; ++i) z += softplus(p.b(i));
            for (Index j = 0; j < fam_.m; ++j) z += softplus(p.c(j));
        }
        return z;
    }
    void draw_independent(const Params& p, RowMat& X, Index begin, Index end, ChainRngs& rngs) const {
        for (Index r = begin; r < end; ++r) {
            Rng& rng = rngs[r];
            for (Index i = 0; i < fam_.n; ++i)
                X(r, i) =
                    fam_.grbm ? p.b(i) + fam_.sigma(i) * rng.normal() : (rng.uniform() < sigmoid(p.b(i)) ? 1.0 : 0.0);
        }
    }

    void check_compatible(const Model& target, const Model& base) const {
        if (base.kind() != target.kind())
            throw InputError(std::string("moments path: the base is a ") + kind_name(base.kind()) +
                             " but the target is a " + kind_name(target.kind()) + "; they must be of the same kind");
        if (base.n_visible() != fam_.n || base.n_hidden() != fam_.m)
            throw InputError("moments path: the base has " + std::to_string(base.n_visible()) + " visible and " +
                             std::to_string(base.n_hidden()) + " hidden units, the target " + std::to_string(fam_.n) +
                             " and " + std::to_string(fam_.m) + "; they must match");
        if (const Grbm* g = base.as<Grbm>()) {
            if ((g->sigma - fam_.sigma).cwiseAbs().maxCoeff() > 1e-12 * fam_.sigma.cwiseAbs().maxCoeff())
                throw InputError(
                    "moments path: the base's sigma differs from the target's; a GRBM family has fixed "
                    "sigma (use the AISM-type base: b = target mean, sigma = target sigma)");
            if (g->hidden_values != fam_.values)
                throw InputError("moments path: the base's hidden_values differ from the target's");
        }
    }
    static void check_options(const MasOptions& o) {
        double prev = 0;
        for (std::size_t k = 0; k < o.knots.size(); ++k) {
            const double b = o.knots[k];
            if (!(b > 0 && b < 1))
                throw InputError("moments path: knot " + std::to_string(k + 1) + " is " + std::to_string(b) +
                                 "; knots must lie strictly inside (0, 1)");
            if (!(b > prev))
                throw InputError("moments path: knots must be strictly increasing, but knot " + std::to_string(k + 1) +
                                 " (" + std::to_string(b) + ") follows " + std::to_string(prev));
            prev = b;
        }
        if (o.max_iterations < 1)
            throw InputError("moments path: max_iterations must be >= 1, got " + std::to_string(o.max_iterations));
        if (!(o.tolerance > 0)) throw InputError("moments path: tolerance must be > 0");
        if (o.pcd_chains < 1 || o.pcd_steps < 1)
            throw InputError("moments path: pcd_chains and pcd_steps must be >= 1");
    }
    std::string describe_size() const {
        std::ostringstream os;
        os << fam_.radix() << "^" << fam_.layer() << " " << (fam_.enum_visible ? "visible" : "hidden")
           << " configurations";
        return os.str();
    }

    Family fam_;
    bool base_zero_ = false;
    Grbm hidden_;  // only its hidden_values: phi()
    double log_z0_ = 0, cost_ = 0;
    std::vector<Knot> knots_;
    std::vector<Params> params_;  // RBM parameters at each knot
    std::string notes_;
    detail::BetaCache<Table> tables_;
};

}  // namespace

PathPtr make_mas_path(const Model& target, const Model& base, const MasOptions& opts) {
    return std::make_shared<MasPath>(target, base, opts);
}

}  // namespace rbm
