// Exact answers (docs/methods/models.md): enumeration sizes and limits, and the dispatch by model kind. The
// per-kind work lives in exact/grbm.cpp, exact/brbm.cpp, exact/leaky.cpp; a normalized
// Gaussian is its own answer.
#include <cmath>
#include <sstream>

#include "core/exact/enumeration.hpp"
#include "core/kernels/gibbs.hpp"
#include "core/numerics/parallel.hpp"

namespace rbm {

namespace exact_detail {

namespace {
// "16777216 (2^24)" when the limit is a power of two, else the number.
std::string limit_text(double limit) {
    std::ostringstream os;
    os.precision(15);
    os << limit;
    const double e = std::log2(limit);
    if (limit >= 1 && e == std::floor(e)) os << " (2^" << static_cast<long long>(e) << ")";
    return os.str();
}
}  // namespace

void require_size(const EnumerationSize& size, const ExactOptions& opts) {
    if (size.configurations <= opts.max_configurations) return;
    std::ostringstream os;
    os.precision(3);
    os << "exact computation needs " << size.what << " (" << size.configurations << "), more than the limit "
       << limit_text(opts.max_configurations)
       << "; use an estimate (AIS, Gibbs chains) instead or raise the limit (--max-configurations)";
    throw InputError(os.str());
}

}  // namespace exact_detail

using namespace exact_detail;

EnumerationSize enumeration_size(const Model& model) {
    switch (model.kind()) {
        case ModelKind::Grbm: return grbm_enumeration_size(*model.as<Grbm>());
        case ModelKind::Brbm: return brbm_enumeration_size(*model.as<Brbm>(), {});
        case ModelKind::Leaky: return {0, "no enumeration (closed form or quadrature)"};
        case ModelKind::Gaussian: return {0, "no enumeration (a normalized Gaussian)"};
    }
    return {};
}

void require_enumerable(const Model& model, const ExactOptions& opts) {
    if (const auto* g = model.as<Grbm>()) require_size(grbm_enumeration_size(*g), opts);
    if (const auto* b = model.as<Brbm>()) require_size(brbm_enumeration_size(*b, opts), opts);
}

bool has_exact_log_z(const Model& model, const ExactOptions& opts) {
    switch (model.kind()) {
        case ModelKind::Grbm: return grbm_enumeration_size(*model.as<Grbm>()).configurations <= opts.max_configurations;
        case ModelKind::Brbm:
            return brbm_enumeration_size(*model.as<Brbm>(), opts).configurations <= opts.max_configurations;
        case ModelKind::Leaky: return leaky_has_exact_log_z(*model.as<Leaky>());
        case ModelKind::Gaussian: return true;
    }
    return false;
}

double exact_log_z(const Model& model, const ExactOptions& opts) {
    switch (model.kind()) {
        case ModelKind::Grbm: return grbm_log_z(*model.as<Grbm>(), opts);
        case ModelKind::Brbm: return brbm_log_z(*model.as<Brbm>(), opts);
        case ModelKind::Leaky: return leaky_log_z(*model.as<Leaky>());
        case ModelKind::Gaussian: return 0.0;  // normalized by definition (docs/methods/models.md#gaussian)
    }
    return 0.0;
}

Moments exact_visible_moments(const Model& model, const ExactOptions& opts) {
    switch (model.kind()) {
        case ModelKind::Grbm: return grbm_visible_moments(*model.as<Grbm>(), opts);
        case ModelKind::Brbm: return brbm_layer_moments(*model.as<Brbm>(), true, opts);
        case ModelKind::Leaky: return leaky_visible_moments(*model.as<Leaky>());
        case ModelKind::Gaussian: {
            const auto& g = *model.as<Gaussian>();
            return {g.mean, g.cov};
        }
    }
    return {};
}

HiddenMoments exact_hidden_moments(const Model& model, const ExactOptions& opts) {
    if (const auto* g = model.as<Grbm>()) return grbm_hidden_moments(*g, opts);
    if (const auto* b = model.as<Brbm>()) {
        const Moments mo = brbm_layer_moments(*b, false, opts);
        return {mo.mean, mo.cov};
    }
    throw InputError(std::string("exact hidden moments are available for grbm and brbm models, not for a ") +
                     kind_name(model.kind()) + " model");
}

RowMat exact_samples(const Model& model, Index count, std::uint64_t seed, const ExactOptions& opts) {
    if (count < 0) throw InputError("the number of exact samples must be >= 0, got " + std::to_string(count));
    switch (model.kind()) {
        case ModelKind::Grbm: return grbm_samples(*model.as<Grbm>(), count, seed, opts);
        case ModelKind::Brbm: return brbm_samples(*model.as<Brbm>(), count, seed, opts);
        case ModelKind::Leaky: return leaky_samples(*model.as<Leaky>(), count, seed);
        case ModelKind::Gaussian: {
            const auto& g = *model.as<Gaussian>();
            const Mat L = g.cholesky();
            RowMat V(count, g.n_visible());
            ChainRngs rngs(seed, count, StreamPurpose::Exact);
            for_each_block(count, [&](Index begin, Index end) { gaussian_sample(g.mean, L, V, begin, end, rngs); });
            return V;
        }
    }
    return {};
}

}  // namespace rbm
