// build_path(): the CLI/GUI request (path, base, optional start model) -> an annealing path.
// Every combination that makes no sense is an InputError naming it.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/ais/paths.hpp"
#include "core/numerics/scalar.hpp"

namespace rbm {

namespace {

// Forwards everything to another path and appends a note (how the request was interpreted).
class NotedPath final : public AnnealingPath {
public:
    NotedPath(PathPtr inner, std::string note) : inner_(std::move(inner)), note_(std::move(note)) {}
    std::string name() const override { return inner_->name(); }
    std::string notes() const override {
        const std::string n = inner_->notes();
        return n.empty() ? note_ : n + "; " + note_;
    }
    std::string kernel_name() const override { return inner_->kernel_name(); }
    Index dim() const override { return inner_->dim(); }
    Index visible_dim() const override { return inner_->visible_dim(); }
    bool log_f_on_visible() const override { return inner_->log_f_on_visible(); }
    double log_z0() const override { return inner_->log_z0(); }
    void sample_base(RowMat& X, Index b, Index e, ChainRngs& r) const override { inner_->sample_base(X, b, e, r); }
    void log_f(double beta, const RowMat& X, Index b, Index e, Vec& out) const override {
        inner_->log_f(beta, X, b, e, out);
    }
    void transition(double beta, RowMat& X, Index b, Index e, ChainRngs& r) const override {
        inner_->transition(beta, X, b, e, r);
    }
    void advance(double bp, double beta, RowMat& X, Index b, Index e, Vec& lw, ChainRngs& r) const override {
        inner_->advance(bp, beta, X, b, e, lw, r);
    }
    void set_visible(RowMat& X, Index b, Index e, const RowMat& V, Index v_first) const override {
        inner_->set_visible(X, b, e, V, v_first);
    }
    bool can_sample_exactly() const override { return inner_->can_sample_exactly(); }
    void sample_exact(double beta, RowMat& X, Index b, Index e, ChainRngs& r) const override {
        inner_->sample_exact(beta, X, b, e, r);
    }
    std::vector<Knot> knots() const override { return inner_->knots(); }
    double cost_functional() const override { return inner_->cost_functional(); }

private:
    PathPtr inner_;
    std::string note_;
};

PathPtr with_note(PathPtr p, const std::string& note) {
    return note.empty() ? p : std::make_shared<NotedPath>(std::move(p), note);
}

std::string kind_of(const Model& m) { return kind_name(m.kind()); }

bool is_diagonal(const Mat& c) {
    for (Index i = 0; i < c.rows(); ++i)
        for (Index j = 0; j < c.cols(); ++j)
            if (i != j && c(i, j) != 0.0) return false;
    return true;
}

// The moments for a moment-matched base: the data set when base == data, else the request's source.
VisibleMoments base_moments(const Model& target, const PathRequest& req) {
    MomentSource src = req.moments;
    if (req.base == "data") {
        if (src.data.rows() == 0)
            throw InputError("--base data needs a data set (--data FILE with one visible vector per row)");
        src.kind = MomentSource::Kind::Data;
    }
    return target_moments(target, src);
}

PathPtr grbm_geometric(const Grbm& g, const Model& target, const PathRequest& req, const Model* from,
                       const std::string& from_label) {
    if (from) {
        const auto* base = from->as<Gaussian>();
        if (!base)
            throw InputError("a GRBM anneals from a Gaussian base, but " + from_label + " is a " + kind_of(*from) +
                             " model");
        if (!is_diagonal(base->cov) && req.float32)
            throw InputError(
                "--precision float32 is available for the geometric GRBM/BRBM paths with a diagonal base only; " +
                from_label + " has a full covariance (the AISC construction)");
        if (is_diagonal(base->cov)) {
            DiagGaussianBase d{base->mean, base->cov.diagonal().cwiseSqrt()};
            return make_grbm_geometric_path(g, d, "given diagonal Gaussian base", req.float32);
        }
        return with_note(make_grbm_cov_path(g, base->mean, base->cov, req.cov_floor_scale),
                         from_label +
                             " has a full covariance, so this is the full-covariance (AISC) construction "
                             "annealing from that Gaussian");
    }
    if (req.base == "uniform")
        throw InputError("--base uniform is for BRBMs; a GRBM needs a Gaussian base: moment, sigma or data");
    if (req.base == "moment" || req.base == "data") {
        const VisibleMoments mom = base_moments(target, req);
        Vec var = mom.cov.diagonal();
        int floored = 0;
        for (Index i = 0; i < var.size(); ++i) {
            const double floor = 1e-6 * g.sigma(i) * g.sigma(i);
            if (!(var(i) >= floor)) {
                var(i) = floor;
                ++floored;
            }
        }
        std::string note;
        if (floored > 0)
            note = std::to_string(floored) + " base variance(s) were below 1e-6 sigma^2 and were floored there";
        return with_note(make_grbm_geometric_path(g, DiagGaussianBase{mom.mean, var.cwiseSqrt()},
                                                  "AIS base: target mean and variance from " + mom.source, req.float32),
                         note);
    }
    // sigma: the mean alone
    MomentSource mean_only = req.moments;
    mean_only.need_cov = false;
    const VisibleMoments mom = target_moments(target, mean_only);
    return make_grbm_geometric_path(g, DiagGaussianBase{mom.mean, g.sigma},
                                    "AISM base: target mean from " + mom.source + ", sd = sigma", req.float32);
}

Vec brbm_base_bias(const Model& target, const PathRequest& req, std::string& label) {
    const Index n = target.n_visible();
    if (req.base == "uniform") {
        label = "uniform base";
        return Vec::Zero(n);
    }
    if (req.base == "sigma") throw InputError("--base sigma is for GRBMs; a BRBM takes --base uniform, moment or data");
    PathRequest mean_only = req;
    mean_only.moments.need_cov = false;  // the base rate uses the mean alone
    const VisibleMoments mom = base_moments(target, mean_only);
    Vec a(n);
    for (Index i = 0; i < n; ++i) a(i) = logit(std::clamp(mom.mean(i), 1e-3, 1.0 - 1e-3));
    label = "base-rate base from " + mom.source;
    return a;
}

PathPtr brbm_geometric(const Brbm& m, const Model& target, const PathRequest& req, const Model* from,
                       const std::string& from_label) {
    if (from) {
        const auto* base = from->as<Brbm>();
        if (!base || !base->W.isZero(0.0) || !base->c.isZero(0.0))
            throw InputError("a BRBM's geometric path starts from a product of Bernoullis: " + from_label +
                             " must be a BRBM with all weights and hidden biases zero (only its visible bias is used)");
        return make_brbm_geometric_path(m, base->b, "given base-rate RBM", req.float32);
    }
    std::string label;
    const Vec a = brbm_base_bias(target, req, label);
    return make_brbm_geometric_path(m, a, label, req.float32);
}

// The zero-weight model of the target's kind that MAS starts from.
Model mas_base(const Model& target, const PathRequest& req, std::string& note) {
    Model base;
    if (const auto* g = target.as<Grbm>()) {
        if (req.base == "uniform")
            throw InputError("--base uniform is for BRBMs; a GRBM needs a Gaussian base: moment, sigma or data");
        Grbm b0;
        b0.W = Mat::Zero(g->n_visible(), g->n_hidden());
        b0.c = Vec::Zero(g->n_hidden());
        b0.sigma = g->sigma;
        b0.hidden_values = g->hidden_values;
        const VisibleMoments mom = req.base == "data" ? base_moments(target, req) : target_moments(target, req.moments);
        b0.b = mom.mean;
        note = "MAS keeps sigma fixed, so its base is N(target mean from " + mom.source + ", sigma^2)";
        base.params = b0;
    } else {
        const auto& m = *target.as<Brbm>();
        Brbm b0;
        b0.W = Mat::Zero(m.n_visible(), m.n_hidden());
        b0.c = Vec::Zero(m.n_hidden());
        std::string label;
        b0.b = brbm_base_bias(target, req, label);
        note = "MAS from the " + label;
        base.params = b0;
    }
    base.name = "MAS base";
    return base;
}

const char* kPaths = "geometric|cov|moments|leaky|energy";
const char* kBases = "moment|sigma|uniform|data";

}  // namespace

PathPtr build_path(const Model& target, const PathRequest& req) {
    const std::vector<std::string> paths{"geometric", "cov", "moments", "leaky", "energy"};
    const std::vector<std::string> bases{"moment", "sigma", "uniform", "data"};
    if (std::find(paths.begin(), paths.end(), req.path) == paths.end())
        throw InputError("unknown path '" + req.path + "': expected " + kPaths);
    if (std::find(bases.begin(), bases.end(), req.base) == bases.end())
        throw InputError("unknown base '" + req.base + "': expected " + kBases);
    validate(target);
    const bool geometric_rbm =
        req.path == "geometric" && (target.kind() == ModelKind::Grbm || target.kind() == ModelKind::Brbm);
    if (req.float32 && !geometric_rbm)
        throw InputError("--precision float32 is available for the geometric GRBM/BRBM paths only, not --path " +
                         req.path + " on a " + kind_name(target.kind()) + " model");

    const bool leaky_path = req.path == "leaky" || req.path == "energy";
    // Explicit --from wins over the model's stored start distribution; the leaky paths have
    // their own start (the cL = 1 Gaussian or N(b, I)) and take none.
    const Model* from = req.from ? &*req.from : (leaky_path ? nullptr : target.anneal_from.get());
    const std::string from_label = req.from ? "the --from model" : "the model's 'anneal_from'";
    if (from) {
        validate(*from);
        if (from->n_visible() != target.n_visible())
            throw InputError("the base model has " + std::to_string(from->n_visible()) + " visible units, the target " +
                             std::to_string(target.n_visible()));
    }

    if (leaky_path) {
        const auto* l = target.as<Leaky>();
        const std::string label = req.path == "leaky" ? "--path leaky (AIS-Leaky)" : "--path energy (AIS-Energy)";
        if (!l) throw InputError(label + " needs a leaky RBM target, but the model is a " + kind_of(target));
        if (req.from) throw InputError(label + " has its own start distribution and takes no --from model");
        return req.path == "leaky" ? make_leaky_leakiness_path(*l, req.leaky_kernel)
                                   : make_leaky_energy_path(*l, req.leaky_kernel);
    }

    if (const auto* to = target.as<Gaussian>()) {
        if (req.path == "cov") throw InputError("--path cov (AISC) needs a GRBM target, but the model is a gaussian");
        if (!from)
            throw InputError(
                "annealing into a gaussian needs a start distribution: give --from BASE_MODEL (a gaussian) "
                "or store one under 'anneal_from'");
        const auto* g0 = from->as<Gaussian>();
        if (!g0)
            throw InputError("a gaussian target anneals from a gaussian, but " + from_label + " is a " +
                             kind_of(*from));
        return make_gaussian_path(
            *g0, *to, req.path == "moments" ? GaussianPathKind::MomentAveraging : GaussianPathKind::Geometric);
    }

    if (const auto* l = target.as<Leaky>()) {
        if (req.path != "geometric")
            throw InputError("--path " + req.path + " is for GRBMs/BRBMs; a leaky RBM takes --path leaky or energy");
        if (req.from)
            throw InputError("a leaky RBM's geometric (AIS-Energy) path starts from N(b, I) and takes no --from model");
        return with_note(make_leaky_energy_path(*l, req.leaky_kernel),
                         "the geometric path on a leaky RBM's joint energy is AIS-Energy");
    }

    if (req.path == "cov") {
        const auto* g = target.as<Grbm>();
        if (!g) throw InputError("--path cov (AISC) needs a GRBM target, but the model is a " + kind_of(target));
        if (from) {
            const auto* base = from->as<Gaussian>();
            if (!base)
                throw InputError("--path cov starts from a Gaussian, but " + from_label + " is a " + kind_of(*from));
            return make_grbm_cov_path(*g, base->mean, base->cov, req.cov_floor_scale);
        }
        if (req.base != "moment" && req.base != "data")
            throw InputError(
                "--path cov matches the target's mean and covariance: --base must be moment or data, not " + req.base);
        const VisibleMoments mom = base_moments(target, req);
        return with_note(make_grbm_cov_path(*g, mom.mean, mom.cov, req.cov_floor_scale),
                         "target moments from " + mom.source);
    }

    if (req.path == "moments") {
        std::string note;
        if (from) {
            if (from->kind() != target.kind())
                throw InputError("--path moments (MAS) anneals within one model family: " + from_label + " is a " +
                                 kind_of(*from) + ", the target a " + kind_of(target));
            return make_mas_path(target, *from, req.mas);
        }
        const Model base = mas_base(target, req, note);
        return with_note(make_mas_path(target, base, req.mas), note);
    }

    // geometric
    if (const auto* g = target.as<Grbm>()) return grbm_geometric(*g, target, req, from, from_label);
    return brbm_geometric(*target.as<Brbm>(), target, req, from, from_label);
}

}  // namespace rbm
