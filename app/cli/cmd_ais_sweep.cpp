// rbmscope-cli ais-sweep: log Zhat and ESS against the number of steps K for several methods,
// over repeated runs -- the data behind the papers' "log Z vs K" and "ESS vs K" figures.
#include <cmath>
#include <iostream>
#include <sstream>

#include "ais_cli.hpp"
#include "rbmscope/ais_runner.hpp"
#include "rbmscope/exact.hpp"
#include "rbmscope/parallel.hpp"
#include "rbmscope/presets.hpp"

namespace rbm::cli {
namespace {

struct Method {
    std::string spec, path, base;
};

std::vector<Method> parse_methods(const std::string& list) {
    static const std::vector<std::string> paths{"geometric", "cov", "moments", "leaky", "energy"};
    static const std::vector<std::string> bases{"moment", "sigma", "uniform", "data"};
    std::vector<Method> out;
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) throw InputError("--methods has an empty entry in '" + list + "'");
        Method m{item, item, "moment"};
        if (auto c = item.find(':'); c != std::string::npos) {
            m.path = item.substr(0, c);
            m.base = item.substr(c + 1);
        }
        if (std::find(paths.begin(), paths.end(), m.path) == paths.end())
            throw InputError("--methods: unknown path '" + m.path + "' in '" + item +
                             "' (expected geometric|cov|moments|leaky|energy, optionally :base)");
        if (std::find(bases.begin(), bases.end(), m.base) == bases.end())
            throw InputError("--methods: unknown base '" + m.base + "' in '" + item + "' (expected moment|sigma|uniform|data)");
        out.push_back(m);
    }
    return out;
}

struct Row {
    std::string method, path, base, path_name;
    Index steps = 0;
    double log_z_mean = 0, log_z_sd = 0, ci_low = 0, ci_high = 0, ess = 0, ess_fraction = 0, log_w_mean = 0, seconds = 0;
    double upper_mean = NAN, upper_sd = NAN;
};

double mean_of(const std::vector<double>& x) {
    double s = 0;
    for (double v : x) s += v;
    return s / static_cast<double>(x.size());
}
double sd_of(const std::vector<double>& x) {
    if (x.size() < 2) return 0.0;
    const double m = mean_of(x);
    double s = 0;
    for (double v : x) s += (v - m) * (v - m);
    return std::sqrt(s / static_cast<double>(x.size() - 1));
}

std::string csv_number(double x) {
    if (!std::isfinite(x)) return "";
    std::ostringstream os;
    os.precision(10);
    os << x;
    return os.str();
}

json run_sweep(const std::vector<std::string>& argv) {
    std::vector<Args::Option> opts{
        {"methods", "LIST", "comma-separated path[:base], e.g. geometric:moment,geometric:sigma,cov (default geometric:moment)"},
        {"steps", "K1,K2,...", "numbers of steps (default 10,30,100,300,1000)"},
        {"chains", "N", "AIS chains per run (default 100)"},
        {"repeats", "R", "independent runs per method and K (default 10); run r uses seed S + r"},
        {"seed", "S", "seed (default 1)"},
        {"schedule", "S", "linear (default) | sigmoid | four-period | piecewise | binned | geometric"},
        {"perfect", "", "perfect transitions"},
        {"reverse", "", "also run reverse AIS (upper estimates)"},
        {"format", "json|csv", "output format (default json)"},
        {"threads", "T", "worker threads"}};
    for (auto& o : ais_path_options()) opts.push_back(o);
    Args a("ais-sweep", {"MODEL"}, opts,
           "AIS over several methods and numbers of steps K, each repeated R times: mean and sd of\n"
           "log Zhat over the repeats, the mean bootstrap 95% interval and the mean ESS (the papers'\n"
           "log Z vs K and ESS vs K figures). Repeat r of every method uses seed S + r, so\n"
           "`rbmscope-cli ais MODEL --seed S+r ...` reproduces one run.");
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    const std::vector<Method> methods = parse_methods(a.get("methods", "geometric:moment"));
    std::vector<long long> ks = a.get_ints("steps", 1);
    if (ks.empty()) ks = {10, 30, 100, 300, 1000};
    const Index chains = a.get_int("chains", 100, 1, 1LL << 31);
    const int repeats = static_cast<int>(a.get_int("repeats", 10, 1, 1'000'000));
    const std::uint64_t seed = a.get_seed("seed", 1);
    const std::string kind = a.get_choice("schedule", "linear",
                                          {"linear", "sigmoid", "four-period", "piecewise", "binned", "geometric"});
    const std::string format = a.get_choice("format", "json", {"json", "csv"});
    const Model model = resolve_model_argument(a.positional(0));

    std::vector<Row> rows;
    for (const Method& m : methods) {
        const PathPtr p = build_path(model, ais_path_request(a, model, m.path, m.base, seed));
        for (long long k : ks) {
            ScheduleRequest sreq;
            sreq.kind = kind;
            sreq.steps = k;
            const Schedule schedule = make_schedule(sreq, p.get());
            std::vector<double> lz, lo, hi, ess, essf, lwm, up;
            double secs = 0;
            for (int r = 0; r < repeats; ++r) {
                AisOptions o;
                o.chains = chains;
                o.seed = seed + static_cast<std::uint64_t>(r);
                o.perfect = a.flag("perfect");
                o.reverse = a.flag("reverse");
                o.checkpoints = 1;
                const AisResult res = run_ais(*p, schedule, o);
                lz.push_back(res.estimate.log_z);
                lo.push_back(res.estimate.ci95_low);
                hi.push_back(res.estimate.ci95_high);
                ess.push_back(res.estimate.ess);
                essf.push_back(res.estimate.ess_fraction);
                lwm.push_back(res.estimate.log_w_mean);
                if (res.reverse && res.reverse->log_z_upper) up.push_back(*res.reverse->log_z_upper);
                secs += res.seconds;
            }
            Row row{m.spec, m.path, m.base, p->name(), static_cast<Index>(k), mean_of(lz), sd_of(lz), mean_of(lo),
                    mean_of(hi), mean_of(ess), mean_of(essf), mean_of(lwm), secs};
            if (!up.empty()) {
                row.upper_mean = mean_of(up);
                row.upper_sd = sd_of(up);
            }
            rows.push_back(row);
        }
    }
    const bool exact_known = has_exact_log_z(model);
    const double exact = exact_known ? exact_log_z(model) : NAN;

    if (format == "csv") {
        std::cout << "method,path,base,steps,chains,repeats,log_z_mean,log_z_sd,ci95_low_mean,ci95_high_mean,ess_mean,"
                     "ess_fraction_mean,log_w_mean,log_z_upper_mean,log_z_upper_sd,exact_log_z,seconds\n";
        for (const Row& r : rows)
            std::cout << r.method << ',' << r.path << ',' << r.base << ',' << r.steps << ',' << chains << ',' << repeats << ','
                      << csv_number(r.log_z_mean) << ',' << csv_number(r.log_z_sd) << ',' << csv_number(r.ci_low) << ','
                      << csv_number(r.ci_high) << ',' << csv_number(r.ess) << ',' << csv_number(r.ess_fraction) << ','
                      << csv_number(r.log_w_mean) << ',' << csv_number(r.upper_mean) << ',' << csv_number(r.upper_sd) << ','
                      << csv_number(exact) << ',' << csv_number(r.seconds) << '\n';
        return nullptr;
    }
    json j;
    j["model"] = a.positional(0);
    if (exact_known) j["exact_log_z"] = exact;
    j["chains"] = chains;
    j["repeats"] = repeats;
    j["seed"] = seed;
    j["schedule"] = kind;
    j["perfect"] = a.flag("perfect");
    json results = json::array();
    for (const Row& r : rows) {
        json x{{"method", r.method},         {"path", r.path},           {"base", r.base},
               {"path_name", r.path_name},   {"steps", r.steps},         {"log_z_mean", r.log_z_mean},
               {"log_z_sd", r.log_z_sd},     {"ci95_low_mean", r.ci_low}, {"ci95_high_mean", r.ci_high},
               {"ess_mean", r.ess},          {"ess_fraction_mean", r.ess_fraction},
               {"log_w_mean", r.log_w_mean}, {"seconds", r.seconds}};
        if (std::isfinite(r.upper_mean)) {
            x["log_z_upper_mean"] = r.upper_mean;
            x["log_z_upper_sd"] = r.upper_sd;
        }
        results.push_back(x);
    }
    j["results"] = results;
    return j;
}

}  // namespace

REGISTER_COMMAND("ais-sweep", "AIS log Z and ESS vs number of steps K for several methods (repeated runs)", run_sweep);

}  // namespace rbm::cli
