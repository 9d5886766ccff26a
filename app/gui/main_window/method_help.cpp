#include "main_window/method_help.hpp"

namespace rbmscope {
namespace {

const char* kAis =
    "<p><b>Annealed importance sampling</b> (Neal 2001). N chains start from exact draws of p<sub>0</sub>; at each "
    "step k the log weight gains log f<sub>β<sub>k</sub></sub>(x) − log f<sub>β<sub>k−1</sub></sub>(x), evaluated "
    "before a Markov transition that leaves p<sub>β<sub>k</sub></sub> invariant. Then<br>"
    "&nbsp;&nbsp;log Ẑ = log Z<sub>0</sub> + log (1/N) Σ<sub>i</sub> exp ℓ<sub>i</sub>,<br>"
    "an unbiased estimate of Z (and, by Jensen, a stochastic lower bound on log Z).</p>";

QString geometricGrbm(bool sigmaBase) {
    return QStringLiteral(
               "<h3>Geometric path on the joint energy — %1</h3>"
               "<p>E<sub>β</sub> = β E<sub>B</sub>(v,h) + (1−β) E<sub>A</sub>(v,h), with E<sub>A</sub> = Σ<sub>i</sub> "
               "(v<sub>i</sub> − b<sup>A</sup><sub>i</sub>)²/(2σ<sub>A,i</sub>²) a Gaussian with no weights. Block "
               "Gibbs stays available at every β:<br>"
               "&nbsp;&nbsp;p<sub>β</sub>(h<sub>j</sub>=1|v) = sigm(β λ<sub>j</sub>), λ<sub>j</sub> = c<sub>j</sub> + "
               "Σ<sub>i</sub> W<sub>ij</sub> v<sub>i</sub>/σ<sub>i</sub>;<br>"
               "&nbsp;&nbsp;1/s<sub>i</sub>² = β/σ<sub>i</sub>² + (1−β)/σ<sub>A,i</sub>² (SPEC corrects the paper's "
               "eq. 9, which swaps A and B).<br>"
               "log f<sub>β</sub>(v) = −β Σ(v<sub>i</sub>−b<sub>i</sub>)²/(2σ<sub>i</sub>²) + Σ<sub>j</sub> "
               "softplus(β λ<sub>j</sub>) − (1−β) Σ(v<sub>i</sub>−b<sup>A</sup><sub>i</sub>)²/(2σ<sub>A,i</sub>²); "
               "log Z<sub>0</sub> = m log 2 + Σ log(√(2π) σ<sub>A,i</sub>).</p>"
               "<p>%2</p><p><i>Source:</i> Salakhutdinov &amp; Murray 2008; Kiwaki &amp; Aihara 2015, eqs. 7–9 and "
               "§5.</p>")
        .arg(sigmaBase ? QStringLiteral("AISM") : QStringLiteral("AIS"),
             sigmaBase
                 ? QStringLiteral("<b>AISM</b>: b<sup>A</sup> = target mean, σ<sub>A</sub> = σ (the model's own "
                                  "standard deviations).")
                 : QStringLiteral("<b>AIS</b>: b<sup>A</sup> and σ<sub>A</sub>² are the target's mean and variance "
                                  "(exact moments when enumerable). The base matches the variances but not the "
                                  "covariance: on a correlated target it puts mass where the target has none."));
}

const char* kCov =
    "<h3>Full-covariance base — AISC</h3>"
    "<p>An auxiliary Gaussian x carries the target's covariance into the base:<br>"
    "&nbsp;&nbsp;E<sub>β</sub>(h,x,v) = β E<sub>B</sub>(v,h) + "
    "(1−β)[Σ<sub>i</sub>(v<sub>i</sub>−x<sub>i</sub>)²/(2σ<sub>i</sub>²)"
    " + ½ (x−b<sup>A</sup>)ᵀΛ(x−b<sup>A</sup>)].<br>"
    "Integrating x out, the weights use log f<sub>β</sub>(v) = −β Σ(v<sub>i</sub>−b<sub>i</sub>)²/(2σ<sub>i</sub>²) + "
    "Σ<sub>j</sub> softplus(β λ<sub>j</sub>) − (1−β) ½ (v−b<sup>A</sup>)ᵀΣ<sub>A</sub><sup>−1</sup>(v−b<sup>A</sup>), "
    "Σ<sub>A</sub> = Λ<sup>−1</sup> + diag(σ²), log Z<sub>0</sub> = m log 2 + (n/2) log 2π + ½ log det "
    "Σ<sub>A</sub>.</p>"
    "<p>To match the target covariance C, Λ = (C − diag σ²)<sup>−1</sup>; C − diag σ² has rank ≤ m, so its "
    "eigenvalues are floored at 10<sup>−3</sup> × mean σ² (the path's notes say how many). The kernel resamples x "
    "and h given v, then v, at every step.</p>"
    "<p><i>Source:</i> Kiwaki &amp; Aihara 2015, eqs. 10–14 (Figs. 2–3 show AIS and AISC on the four-mode toy).</p>";

const char* kMoments =
    "<h3>Moment averaging</h3>"
    "<p>Exponential family p<sub>η</sub> ∝ exp(ηᵀg) with moments s = E[g]. The geometric path is linear in η; moment "
    "averaging is linear in the moments: s(β) = (1−β)s<sub>A</sub> + βs<sub>B</sub>.</p>"
    "<p>Gaussians, exactly: μ(β) = (1−β)μ<sub>0</sub> + βμ<sub>1</sub>; Σ(β) = (1−β)Σ<sub>0</sub> + βΣ<sub>1</sub> + "
    "β(1−β)(μ<sub>1</sub>−μ<sub>0</sub>)(μ<sub>1</sub>−μ<sub>0</sub>)ᵀ — the intermediate distributions spread out to "
    "cover both ends instead of sliding between them.</p>"
    "<p>RBMs (moments-averaged spline, MAS): at knots β<sub>r</sub> (0.1, …, 0.9) fit η(β<sub>r</sub>) by maximizing "
    "ηᵀs(β<sub>r</sub>) − log Z(η), then anneal geometrically between consecutive knots. The optimal binned schedule "
    "gives segment r a share of the K steps ∝ √((η<sub>r+1</sub>−η<sub>r</sub>)ᵀ(s<sub>r+1</sub>−s<sub>r</sub>)). "
    "The cost functional F = ½(η<sub>1</sub>−η<sub>0</sub>)ᵀ(s<sub>1</sub>−s<sub>0</sub>) is the same for GA, MA and "
    "MAS "
    "(Theorem 2).</p>"
    "<p><i>Source:</i> Grosse, Maddison &amp; Salakhutdinov 2013 (§5.1: the two-Gaussian toy).</p>";

const char* kGeometricGauss =
    "<h3>Geometric averages between two Gaussians</h3>"
    "<p>p<sub>β</sub> ∝ p<sub>0</sub><sup>1−β</sup> p<sub>1</sub><sup>β</sup>: natural parameters are averaged, so "
    "the precision matrices average and the intermediate distribution stays narrow, sliding from one mean to the "
    "other. "
    "Between two distant Gaussians the chains are always far from where the next distribution puts its mass: most "
    "weights are tiny and log Ẑ lands many nats low (SPEC: GA ≈ −11 vs MA ≈ −0.7 at K = 25, exact log Z = 0).</p>"
    "<p><i>Source:</i> Grosse, Maddison &amp; Salakhutdinov 2013, §5.1.</p>";

const char* kLeaky =
    "<h3>Leakiness annealing — AIS-Leaky</h3>"
    "<p>For a leaky-ReLU RBM, η = Wᵀv + c and α<sub>j</sub> = 1 if η<sub>j</sub> &gt; 0 else c<sub>L</sub>; "
    "log p*(v) = −½‖v‖² + Σ<sub>j</sub> α<sub>j</sub> η<sub>j</sub>²/2 (SPEC corrects the paper's eq. 6). At leakiness "
    "1 the model is a Gaussian, N((I−WWᵀ)<sup>−1</sup>Wc, (I−WWᵀ)<sup>−1</sup>), with exact samples and log Z. The "
    "path "
    "lowers the leakiness from 1 to c<sub>L</sub>; each step adds Σ<sub>j: η<sub>j</sub>≤0</sub> (c<sub>k</sub> − "
    "c<sub>k−1</sub>) η<sub>j</sub>²/2 to the log weight.</p>"
    "<p>Kernel: the paper's Gibbs conditionals do not leave p*(v) invariant for c<sub>L</sub> &lt; 1 "
    "(docs/methods/models.md, leaky kernels); the "
    "exact kernel uses the Gibbs move as a Metropolis–Hastings proposal.</p>"
    "<p><i>Source:</i> Li, Ravanbakhsh &amp; Póczos 2017, Algorithm 2.</p>";

const char* kEnergy =
    "<h3>Energy annealing — AIS-Energy</h3>"
    "<p>The geometric path on the leaky RBM's joint energy from E<sub>0</sub> = ½‖v − b‖² (a standard Gaussian): "
    "log f<sub>β</sub>(v) = −½‖v‖² + bᵀv + β Σ<sub>j</sub> α<sub>j</sub> η<sub>j</sub>²/2. It must move the whole "
    "mass from the isotropic start into the model's shape, which the leakiness path gets for free; the paper reports "
    "errors of 1.8–9.6 nats for AIS-Energy against 0.02–0.13 for AIS-Leaky.</p>"
    "<p><i>Source:</i> Li, Ravanbakhsh &amp; Póczos 2017.</p>";

const char* kBrbm =
    "<h3>Geometric path for a Bernoulli RBM</h3>"
    "<p>The intermediate RBM has weights βW, visible bias (1−β)b<sup>A</sup> + βb and hidden bias βc; the base has no "
    "weights, so log Z<sub>0</sub> = Σ<sub>i</sub> softplus(b<sup>A</sup><sub>i</sub>) + m log 2. Base: "
    "<b>uniform</b> (b<sup>A</sup> = 0) or <b>base rate</b> (b<sup>A</sup> = logit of the target's visible means, "
    "clipped).</p><p><i>Source:</i> Salakhutdinov &amp; Murray 2008.</p>";

}  // namespace

QString methodHelpHtml(const MethodSpec& m, rbm::ModelKind kind) {
    QString body;
    if (m.path == "cov") body = QString::fromUtf8(kCov);
    else if (m.path == "moments") body = QString::fromUtf8(kMoments);
    else if (m.path == "leaky") body = QString::fromUtf8(kLeaky);
    else if (m.path == "energy" || kind == rbm::ModelKind::Leaky) body = QString::fromUtf8(kEnergy);
    else if (kind == rbm::ModelKind::Gaussian) body = QString::fromUtf8(kGeometricGauss);
    else if (kind == rbm::ModelKind::Brbm) body = QString::fromUtf8(kBrbm);
    else body = geometricGrbm(m.base == "sigma");
    return body + QString::fromUtf8(kAis);
}

QString estimatesHelpHtml() {
    return QStringLiteral(
        "<h3>What the Estimates view shows</h3>"
        "<p><b>log Ẑ</b> = log Z<sub>0</sub> + logmeanexp(ℓ). <b>Bootstrap 95%</b>: percentile interval of logmeanexp "
        "over 1000 resamples of the N log weights. <b>±3σ</b>: log(mean w ± 3 sd(w)/√N) + log Z<sub>0</sub> "
        "(Salakhutdinov's bounds); when mean w − 3 sd(w)/√N ≤ 0 the lower bound does not exist and the bar is drawn "
        "dashed to the bottom.</p>"
        "<p><b>ESS</b> = N / (1 + s²(w*)), w*<sub>i</sub> = N w<sub>i</sub> / Σ w (Kiwaki eq. 6): N when all weights "
        "are "
        "equal, 1 when one dominates.</p>"
        "<p><b>Reverse AIS</b> starts from exact target samples and anneals back to the base; log Z<sub>0</sub> − "
        "logmeanexp(reverse log weights) is a stochastic <i>upper</i> bound, forward AIS a stochastic lower bound: the "
        "two sandwich log Z (bidirectional Monte Carlo).</p>"
        "<p><b>Perfect transitions</b> replace each kernel step by an exact draw from p<sub>β</sub>: what remains is "
        "the quality of the path itself.</p>");
}

}  // namespace rbmscope
