#pragma once
// The model families of docs/methods/models.md with batched evaluation (rows of V are chains or points).
// Conventions everywhere: W is n x m (visible x hidden), b visible bias, c hidden bias.
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/models/training_data.hpp"
#include "core/numerics/types.hpp"
#include "core/random/rng.hpp"

namespace rbm {

// Gaussian-visible RBM with a finite hidden value set X (docs/methods/models.md#grbm).
//   E(v,h) = sum_i (v_i-b_i)^2/(2 s_i^2) - sum_ij (v_i/s_i) W_ij h_j - sum_j c_j h_j
struct Grbm {
    Mat W;
    Vec b, c, sigma;
    std::vector<double> hidden_values{0.0, 1.0};

    Index n_visible() const { return W.rows(); }
    Index n_hidden() const { return W.cols(); }
    bool binary01() const { return hidden_values.size() == 2 && hidden_values[0] == 0.0 && hidden_values[1] == 1.0; }

    // lambda_j(v) = c_j + sum_i W_ij v_i / s_i for every row of V (N x m).
    RowMat hidden_field(const RowMat& V) const;
    // phi(a) = log sum_{x in X} exp(a x), elementwise.
    double log_partition_hidden(double a) const;
    // E_{p(x) ∝ exp(a x)}[x]
    double mean_hidden(double a) const;
    // log p*(v) = -sum (v-b)^2/(2s^2) + sum_j phi(lambda_j)
    Vec log_unnorm(const RowMat& V) const;
    Vec energy(const RowMat& V, const RowMat& H) const;
    // Hidden marginal after integrating v (docs/methods/models.md#grbm-hidden-marginal): p(h) ∝ exp(B.h + h'Jh/2).
    Vec hidden_marginal_field() const;     // B
    Mat hidden_marginal_coupling() const;  // J (diagonal kept)
    // Draw h_j with p(h_j = x) ∝ exp(x * a_j) for a = A(row, j).
    double sample_hidden(double a, Rng& rng) const;
};

// Bernoulli RBM (docs/methods/models.md#brbm): E = -v'Wh - b'v - c'h, v and h binary.
struct Brbm {
    Mat W;
    Vec b, c;

    Index n_visible() const { return W.rows(); }
    Index n_hidden() const { return W.cols(); }
    Vec log_unnorm(const RowMat& V) const;  // b'v + sum softplus(c + W'v)
    Vec energy(const RowMat& V, const RowMat& H) const;
};

// Leaky-ReLU RBM (docs/methods/models.md#leaky, Li, Ravanbakhsh & Poczos 2017) with leakiness cL in (0,1].
// eta = W'v + c; alpha_j = 1 if eta_j > 0 else cL.
//   log p*(v) = -|v|^2/2 + b'v + sum_j alpha_j eta_j^2 / 2
// The paper has no visible bias; b (default 0) is our extension: it shifts p(v|h) to
// N(b + Wh, I) and adds b'v to the marginal, which keeps every formula below exact.
struct Leaky {
    Mat W;
    Vec b, c;
    double leakiness = 0.01;

    Index n_visible() const { return W.rows(); }
    Index n_hidden() const { return W.cols(); }
    // The annealing family used by both leaky paths (docs/methods/annealing-paths.md#leakiness):
    //   log f_{beta,cl}(v) = -|v|^2/2 + b'v + beta * sum_j alpha_j(cl) eta_j^2 / 2
    // beta = 1, cl = leakiness is the model itself.
    Vec log_unnorm(const RowMat& V) const { return log_unnorm(V, 1.0, leakiness); }
    Vec log_unnorm(const RowMat& V, double beta, double cl) const;
    // The paper's joint energy; its h-conditional is N(alpha eta, alpha).
    //   E(v,h) = |v|^2/2 - b'v - v'Wh - c'h + sum_j h_j^2 / (2 alpha_j(v))
    Vec energy(const RowMat& V, const RowMat& H) const;
    // Largest singular value of W; the model is valid only when it is < 1 (Theorem 1).
    double max_singular_value() const;
    // Projection step: clip singular values of W to at most `limit` (default 1 - 1e-6).
    // Returns true when any value was clipped.
    bool project(double limit = 1.0 - 1e-6);
};

// A normalized multivariate normal N(mean, cov): the teaching toys anneal between two.
struct Gaussian {
    Vec mean;
    Mat cov;
    Index n_visible() const { return mean.size(); }
    Vec log_density(const RowMat& V) const;  // normalized
    Vec log_unnorm(const RowMat& V) const { return log_density(V); }
    Mat cholesky() const;  // lower L with L L' = cov
};

enum class ModelKind { Grbm, Brbm, Leaky, Gaussian };
const char* kind_name(ModelKind k);  // "grbm", "brbm", "leaky", "gaussian"

struct Model {
    std::variant<Grbm, Brbm, Leaky, Gaussian> params;
    std::string name;
    std::string notes;
    // Optional start distribution stored with the model (file key "anneal_from"): the
    // teaching toys anneal from one normalized Gaussian into another. `--from` overrides it.
    std::shared_ptr<const Model> anneal_from;
    // The data set and preprocessing the model was trained with (file key "training"), when known.
    std::optional<TrainingData> training;

    ModelKind kind() const { return static_cast<ModelKind>(params.index()); }
    Index n_visible() const;
    Index n_hidden() const;  // 0 for gaussian
    Vec log_unnorm(const RowMat& V) const;
    template <class T>
    const T* as() const {
        return std::get_if<T>(&params);
    }
    template <class T>
    T* as() {
        return std::get_if<T>(&params);
    }
};

// The arrays an RBM-family model file holds (docs/reference/model-files.md), as any reader found
// them; what is absent takes the documented default: b, c zeros, sigma ones, leakiness 0.01,
// hidden values {0, 1}. One builder serves the JSON and the named-array (.npz/.mat/.h5) readers.
struct RbmArrays {
    Mat W;
    std::optional<Vec> b, c, sigma, hidden_values;
    std::optional<double> leakiness;
};
// kind is Brbm, Leaky or Grbm; sigma and hidden_values are read for Grbm only, leakiness for Leaky.
std::variant<Grbm, Brbm, Leaky, Gaussian> rbm_params(ModelKind kind, RbmArrays arrays);

// Checks every invariant of docs/methods/models.md, docs/reference/model-files.md (shapes, finiteness, sigma > 0,
// distinct hidden values, leakiness in (0,1], leaky singular values < 1, positive-definite covariance).
// Throws InputError naming the key and the expectation.
void validate(const Model& model);

// The magnitudes the computations can hold. Accuracy is promised for |W| <= 50 and |bias| <= 500
// (docs/methods/models.md#conventions); beyond kMaxParameter (|W|, |b|, |c|, |hidden value|) or with sigma outside
// [kMinSigma, kMaxParameter], energies, their exponentials and the sums over configurations
// overflow a double, and log Z, moments or samples come out as Inf/NaN. Every rbmscope-cli
// command refuses such a model when it reads its MODEL argument (resolve_model_argument):
// InputError naming the key, the entry and the limit. load_model itself still reads the file.
inline constexpr double kMaxParameter = 1e6;
inline constexpr double kMinSigma = 1e-6;
void require_computable(const Model& model);

}  // namespace rbm
