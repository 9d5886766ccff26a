// rbmscope-cli train: train a BRBM, GRBM or leaky RBM on bars-and-stripes, the digits, IDX or CSV
// data with CD, PCD, tempered PCD (PT / lifted PT / DEO) or the leaky samplers (docs/methods/training.md,
// docs/user/cli.md); and rbmscope-cli data-info: what a data spec loads to.
#include <cctype>
#include <filesystem>
#include <iostream>

#include "cli_command.hpp"
#include "core/data/datasets.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/model_io.hpp"
#include "core/io/named_arrays.hpp"
#include "core/io/provenance.hpp"
#include "core/kernels/build_info.hpp"
#include "core/numerics/parallel.hpp"
#include "core/training/heldout.hpp"
#include "core/training/training.hpp"
#include "data_args.hpp"
#include "interrupt.hpp"
#include "mpi/pt_exchange.hpp"
#include "mpi/world.hpp"
#include "progress.hpp"

namespace rbm::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Data spec + transforms, in the order limit, shifts, then binarize / scale / standardize; `t`
// receives what was applied (the model file records it under "training").
Dataset load_data(const Args& a, const std::string& spec, TrainingData* t = nullptr) {
    TrainingData local = training_data_from_args(a, spec);
    Dataset d = load_training_data(local);
    if (t) *t = local;
    return d;
}

json data_summary(const Dataset& d) {
    json j{{"name", d.name}, {"examples", d.size()}, {"dim", d.dim()}, {"labels", !d.labels.empty()}};
    if (d.has_image_shape()) j["image_shape"] = {d.image_rows, d.image_cols};
    if (d.size() > 0) {
        j["min"] = d.X.minCoeff();
        j["max"] = d.X.maxCoeff();
        j["mean"] = d.X.mean();
        j["binary"] = is_binary(d.X);
    }
    return j;
}

json record_summary(const TrainRecord& r) {
    json j{{"update", r.update}, {"epoch", r.epoch}, {"reconstruction_error", r.reconstruction_error}};
    if (!r.log_likelihood_method.empty()) {
        j["log_likelihood_method"] = r.log_likelihood_method;
        if (std::isfinite(r.log_likelihood)) j["log_likelihood"] = r.log_likelihood;
        if (r.log_likelihood_method == "ais" && std::isfinite(r.log_likelihood_low))
            j["log_likelihood_ci95"] = {r.log_likelihood_low, r.log_likelihood_high};
        if (std::isfinite(r.log_z)) j["log_z"] = r.log_z;
        if (std::isfinite(r.test_log_likelihood)) {  // --test-data
            j["test_log_likelihood"] = r.test_log_likelihood;
            j["test_log_likelihood_ci95"] = {r.test_log_likelihood_low, r.test_log_likelihood_high};
        }
    }
    if (!r.swap_acceptance.empty()) j["swap_acceptance"] = r.swap_acceptance;
    return j;
}

Args train_args() {
    std::vector<Args::Option> options{
        {"data", "SPEC",
         "bars:D (all 2^(D+1)-2 patterns), bars:D:COUNT[:SEED] (sampled), digits (8x8, shipped),\n"
         "      fashion-mnist[:test] (apt-get install dataset-fashion-mnist), FILE.csv, FILE.csv.gz (digits format)\n"
         "      or FILE-idx3-ubyte[.gz] (labels read from the idx1 file beside it)"},
        {"kind", "K", "brbm (default; needs 0/1 data), grbm or leaky"},
        {"hidden", "M", "hidden units (default 16)"},
        {"method", "M", "cd | pcd (default) | pt | lpt | deo | leaky | mix (leaky/mix: --kind leaky)"},
        {"k", "K",
         "sweeps per update (cd, pcd), scans per update (pt, lpt, deo), annealing steps (leaky, mix); default 1"},
        {"epochs", "E", "passes over the data (updates = E x ceil(examples / batch))"},
        {"updates", "U", "parameter updates (default 1000); on --resume: the new total"},
        {"batch", "B", "examples per update (default 10)"},
        {"lr", "X", "learning rate (default 0.01)"},
        {"lr-schedule", "S", "constant (default) or linear (decays to 0 at the last update)"},
        {"momentum", "X", "momentum in [0,1) (default 0)"},
        {"weight-decay", "X", "L2 penalty on W (default 0)"},
        {"gamma", "G", "tempered methods: ladder beta_k = G^(N-k) (default 0.7)"},
        {"rungs", "N", "tempered methods: temperatures besides the target, the paper's N (default 6; N+1 rungs)"},
        {"chains", "C", "persistent chains / ladders (pcd, pt, lpt, deo) or leaky chains (default: the batch size)"},
        {"seed", "S", "random seed (default 1); same seed, same model, any thread count"},
        {"threads", "T", "worker threads; results do not depend on it"},
        {"init-scale", "X", "initial weights N(0, X^2) (default 0.01)"},
        {"sigma", "S", "grbm: initial / fixed sigma (default 1; 0: the data standard deviation per unit)"},
        {"learn-sigma", "", "grbm: learn sigma as well"},
        {"leakiness", "C", "leaky: c_L in (0,1] (default 0.01)"},
        {"no-projection", "", "leaky: skip the projection step (the run is stopped when W leaves the valid region)"},
        {"projection-limit", "S|auto",
         "leaky: clip W's singular values to S < 1; auto (default): the model's variance at c_L = 1\n"
         "      stays within 10x the data's largest variance (so a fit is never cut off)"},
        {"kernel", "K", "leaky: exact-mh (default) or paper-gibbs sweeps in the negative phase"},
        {"monitor-every", "U",
         "log a record every U updates (default: about 20 records per run; 0: start and end only)"},
        {"monitor-examples", "N",
         "rows used for the log-likelihood and reconstruction: a subset drawn from --seed when the data\n"
         "      has more (default 1000; 0: all)"},
        {"test-data", "SPEC",
         "held-out rows (a data spec as for --data, with the same preprocessing): every record also scores the\n"
         "      first --monitor-examples of them against its log Z (test_log_likelihood, with log Z's interval)"},
        {"ais-chains", "N", "AIS chains for the log-likelihood when log Z is not enumerable (default 20)"},
        {"ais-steps", "K", "AIS steps per record (linear schedule from the data's base rate, default 200)"},
        {"exact-limit", "N", "enumerate log Z exactly when it takes at most N terms (default 262144)"},
        {"float32", "",
         "brbm, leaky: the gradient's matrix products (and a brbm's Gibbs sweeps) in single precision (parameters stay "
         "double)"},
        {"checkpoint", "FILE", "write a checkpoint (JSON) at the end and every --checkpoint-every updates"},
        {"checkpoint-every", "U", "updates between checkpoints (default: only at the end)"},
        {"resume", "FILE", "continue from a checkpoint (same --data and transforms; training options come from it)"},
        {"out", "MODEL", "write the trained model here (.json, .npz, .mat or .h5/.hdf5, as convert writes them)"},
        {"mat-version", "V", "for a .mat --out: 5 (default) or 7.3 (MATLAB's HDF5-based format), as convert"},
        {"log", "FILE", "write the training log (.csv or .json)"},
        Progress::option()};
    for (const auto& o : data_options()) options.push_back(o);
    return Args("train", {}, options,
                "Trains an RBM by stochastic gradient ascent on the average log-likelihood (SPEC 7). Negative\n"
                "phase: CD-k, PCD, or PCD whose chains are tempering ladders with reversible even-odd (pt),\n"
                "lifted (lpt) or deterministic even-odd (deo) swaps (Kadan et al., Procedure 1); leaky RBMs also\n"
                "the leakiness-annealing sampler (leaky, Li et al. Algorithm 2) and its variant from data (mix).\n"
                "Leaky RBMs get the projection step after every update. The log-likelihood in the log is exact\n"
                "when log Z is enumerable, else an AIS estimate (labelled, with a bootstrap 95% interval).\n"
                "Ctrl-C stops after the current update and still writes --out, --log and --checkpoint;\n"
                "the JSON then says \"complete\": false (status cancelled) and the exit code is 130.\n"
                "Under mpirun the ranks share every update (gradient tiles of 64 rows; cd/pcd chains, tempered\n"
                "rungs) and print and write what one process does (README \"Cluster runs (MPI)\").");
}

// What the command writes, and where its checkpoints go.
struct TrainFiles {
    std::string model, log, checkpoint;
    bool mat73 = false;  // --mat-version 7.3
    Index checkpoint_every = 0;
};

std::string log_text(const Trainer& t, const std::string& log_path) {
    return ends_with(log_path, ".csv") ? t.log_csv() : t.log_json();
}

// The checks that need no data, made before any is read: the files' suffixes and that they can be
// written, --data, and
// --epochs against --updates.
TrainFiles read_output_files(const Args& a) {
    TrainFiles f;
    f.model = a.get("out", "");
    if (f.model.empty()) throw InputError("--out MODEL is required (.json, .npz, .mat, .h5 or .hdf5)");
    // Every format `convert` writes: save_model is its writer too.
    std::string ext = std::filesystem::path(f.model).extension().string();
    for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (ext != ".json" && ext != ".npz" && !is_named_container_extension(ext))
        throw InputError("--out must end in .json or .npz, or .mat, .h5, .hdf5 (as convert writes), got '" + f.model +
                         "'");
    f.mat73 = a.get_choice("mat-version", "5", {"5", "7.3"}) == "7.3";
    if (f.mat73 && ext != ".mat") throw InputError("--mat-version applies to a .mat --out, not '" + f.model + "'");
    f.log = a.get("log", "");
    if (!f.log.empty() && !ends_with(f.log, ".csv") && !ends_with(f.log, ".json"))
        throw InputError("--log must end in .csv or .json, got '" + f.log + "'");
    // Every file the run will write, tried now: an unwritable one found after hours of training loses them.
    check_writable(f.model, "--out");
    if (!f.log.empty()) check_writable(f.log, "--log");
    if (auto c = a.get("checkpoint"); c && !c->empty()) check_writable(*c, "--checkpoint");
    if (!a.has("data"))
        throw InputError("--data is required: bars:D, digits, fashion-mnist, FILE.csv or FILE-idx3-ubyte");
    if (a.has("epochs") && a.has("updates")) throw InputError("give --epochs or --updates, not both");
    return f;
}

// A new run's options; --batch and --epochs are checked against the examples in `data`.
TrainOptions read_train_options(const Args& a, const Dataset& data) {
    TrainOptions o;
    const std::string kind = a.get_choice("kind", "brbm", {"brbm", "grbm", "leaky"});
    o.kind = kind == "grbm" ? ModelKind::Grbm : kind == "leaky" ? ModelKind::Leaky : ModelKind::Brbm;
    o.hidden = a.get_int("hidden", 16, 1, 100000);
    o.method = parse_train_method(a.get("method", "pcd"));
    o.k = static_cast<int>(a.get_int("k", 1, 1, 100000));
    o.batch = a.get_int("batch", 10, 1);
    if (o.batch > data.size())
        throw InputError("--batch " + std::to_string(o.batch) + " exceeds the " + std::to_string(data.size()) +
                         " examples");
    const Index per_epoch = (data.size() + o.batch - 1) / o.batch;
    o.updates = a.has("epochs") ? a.get_int("epochs", 1, 1, 1000000) * per_epoch : a.get_int("updates", 1000, 1);
    o.learning_rate = a.get_double("lr", 0.01);
    o.schedule = a.get_choice("lr-schedule", "constant", {"constant", "linear"}) == "linear"
                     ? LearningRateSchedule::Linear
                     : LearningRateSchedule::Constant;
    o.momentum = a.get_double("momentum", 0.0);
    o.weight_decay = a.get_double("weight-decay", 0.0);
    o.gamma = a.get_double("gamma", 0.7);
    o.temperatures = a.get_int("rungs", 6, 1, 1000);
    o.chains = a.get_int("chains", 0, 1, 1000000);
    o.seed = a.get_seed("seed", 1);
    o.init_scale = a.get_double("init-scale", 0.01);
    o.sigma = a.get_double("sigma", 1.0);
    o.learn_sigma = a.flag("learn-sigma");
    o.leakiness = a.get_double("leakiness", 0.01);
    o.projection = !a.flag("no-projection");
    if (a.has("projection-limit") && a.get("projection-limit", "") != "auto") {
        if (!o.projection) throw InputError("--projection-limit and --no-projection contradict each other");
        o.projection_limit = a.get_double("projection-limit", 0.0);
    }
    o.leaky_kernel = a.get_choice("kernel", "exact-mh", {"exact-mh", "paper-gibbs"}) == "paper-gibbs"
                         ? LeakyKernel::PaperGibbs
                         : LeakyKernel::ExactMH;
    o.monitor_every = a.get_int("monitor-every", std::max<Index>(1, o.updates / 20), 0);
    o.monitor_examples = a.get_int("monitor-examples", 1000, 0);
    // 20 x 200 per record: on a 784 x 200 PCD run with 100 chains the monitor took 0.7-0.8 x the
    // training's time, against 7 x at 100 x 1000 (scripts/monitor_cost.sh); the app keeps 100 x 1000.
    o.ais_chains = a.get_int("ais-chains", 20, 1, 1000000);
    o.ais_steps = a.get_int("ais-steps", 200, 1, 10000000);
    o.exact_limit = static_cast<double>(a.get_int("exact-limit", 262144, 0));
    o.float32 = a.flag("float32");
    if (o.kind != ModelKind::Leaky)
        for (const char* opt : {"no-projection", "projection-limit", "leakiness", "kernel"})
            if (a.has(opt)) throw InputError(std::string("--") + opt + " applies to --kind leaky only");
    if (!is_tempered(o.method))
        for (const char* opt : {"gamma", "rungs"})
            if (a.has(opt)) throw InputError(std::string("--") + opt + " applies to --method pt, lpt or deo only");
    return o;
}

// A new trainer, or the one in --resume's checkpoint (which holds every training option; only
// the total number of updates may grow).
Trainer make_trainer(const Args& a, Dataset data) {
    if (!a.has("resume")) {
        const TrainOptions o = read_train_options(a, data);  // before `data` moves into the trainer
        return Trainer(o, std::move(data));
    }
    for (const char* o : {"kind",
                          "hidden",
                          "method",
                          "k",
                          "batch",
                          "lr",
                          "lr-schedule",
                          "momentum",
                          "weight-decay",
                          "gamma",
                          "rungs",
                          "chains",
                          "seed",
                          "init-scale",
                          "sigma",
                          "learn-sigma",
                          "leakiness",
                          "no-projection",
                          "projection-limit",
                          "kernel",
                          "monitor-every",
                          "monitor-examples",
                          "ais-chains",
                          "ais-steps",
                          "exact-limit",
                          "epochs",
                          "float32"})
        if (a.has(o))
            throw InputError(std::string("--") + o +
                             " cannot change on --resume (the checkpoint holds it); only --updates can");
    Trainer t = Trainer::load_checkpoint(a.get("resume", ""), std::move(data));
    if (a.has("updates")) t.set_total_updates(a.get_int("updates", 0, 0));
    return t;
}

void read_checkpointing(const Args& a, TrainFiles& f) {
    f.checkpoint = a.get("checkpoint", "");
    f.checkpoint_every = a.get_int("checkpoint-every", 0, 0);
    if (f.checkpoint_every > 0 && f.checkpoint.empty()) throw InputError("--checkpoint-every needs --checkpoint FILE");
}

// Trains until the run finishes, diverges or is stopped by Ctrl-C, writing the checkpoint every
// --checkpoint-every updates and at the end. Under mpirun the ranks share every update
// (Trainer::set_exchange): each sums the scores of its gradient tiles and, for cd and pcd, runs
// only its chains; every rank then holds the same parameters, and rank 0 alone writes files and
// reports progress. Returns the bytes every rank handed to MPI, summed on rank 0.
std::vector<double> train(const Args& a, Trainer& t, const TrainFiles& f, mpi::WorldPtExchange& exchange,
                          Index first_update) {
    mpi::World& world = mpi::world();
    // More ranks than tiles: the extra ranks idle (train_result says which), with the same bits.
    if (world.distributed()) t.set_exchange(&exchange, /*allow_idle=*/true);
    interrupt::watch();
    Progress progress(a);
    const double total_updates = static_cast<double>(std::max<Index>(1, t.options().updates));
    if (world.root()) progress.update("training", static_cast<double>(first_update) / total_updates, 0);
    world.agree(0, /*start_work=*/true);
    while (t.status() == TrainStatus::Running) {
        const Index chunk =
            f.checkpoint_every > 0 ? f.checkpoint_every - t.updates_done() % f.checkpoint_every : t.options().updates;
        // One update at a time for the progress line; step(1) n times is step(n) (same numbers).
        for (Index i = 0; i < chunk && t.status() == TrainStatus::Running; ++i) {
            t.step(1, &interrupt::flag());
            const Index done = t.updates_done();
            if (world.root())
                progress.update("training", static_cast<double>(done) / total_updates, -1,
                                {{"updates_done", done},
                                 {"updates", t.options().updates},
                                 {"update_s", t.update_seconds()},
                                 {"monitor_s", t.monitor_seconds()}});
        }
        if (!f.checkpoint.empty() && t.status() != TrainStatus::Diverged) {
            t.share_states();  // the chains other ranks ran, so the file is that of one process
            if (world.root()) t.save_checkpoint(f.checkpoint);
            mpi::test_pause_after_checkpoint();
        }
        if (t.status() == TrainStatus::Cancelled) break;
    }
    // Every rank's payload, summed on rank 0 (this gather is not counted).
    const double sent = static_cast<double>(exchange.bytes_sent());
    const std::vector<double> bytes = world.gather(&sent, 1);
    world.end_work();
    if (world.root()) progress.finish(t.status() == TrainStatus::Finished);
    return bytes;
}

// The model and the log (rank 0 only). A diverged run writes only its log, then fails with the
// trainer's message.
void write_outputs(const Trainer& t, const TrainFiles& f, const TrainingData& applied) {
    const bool root = mpi::world().root();
    if (t.status() == TrainStatus::Diverged) {
        if (!f.log.empty() && root) write_file_atomically(f.log, log_text(t, f.log));
        throw InputError(t.message() + (f.log.empty() ? "" : " (log written to " + f.log + ")"));
    }
    Model trained = t.model();
    trained.training = applied;  // so the Samples view and AIS see the data as the model did
    if (root && f.mat73) {
        validate(trained);
        try {
            write_mat_model(trained, f.model, true);
        } catch (const InputError& e) {
            throw InputError("cannot save the model to '" + f.model + "': " + e.what());
        }
    } else if (root) {
        save_model(trained, f.model);
    }
    if (!f.log.empty() && root) write_file_atomically(f.log, log_text(t, f.log));
}

json train_result(const Trainer& t, const TrainFiles& f, const std::vector<double>& bytes_sent, Index first_update,
                  double seconds_before) {
    const TrainOptions& o = t.options();
    json j{{"status", train_status_name(t.status())},
           {"model", f.model},
           {"kind", kind_name(o.kind)},
           {"method", train_method_name(o.method)},
           {"hidden", o.hidden},
           {"visible", t.data().dim()},
           {"data", t.data().name},
           {"examples", t.data().size()},
           {"updates", t.updates_done()},
           {"epochs", static_cast<double>(t.updates_done()) * static_cast<double>(o.batch) /
                          static_cast<double>(t.data().size())},
           {"seed", o.seed},
           {"final", t.log().empty() ? json(nullptr) : record_summary(t.log().back())},
           {"records", t.log().size()}};
    if (!t.log().empty()) j["initial"] = record_summary(t.log().front());
    if (o.kind == ModelKind::Leaky) {
        Index active = 0;
        for (auto p : t.projection_active()) active += p;
        j["projection"] = o.projection;
        if (o.projection) j["projection_limit"] = t.projection_limit();
        j["projection_active_updates"] = active;
        j["max_singular_value"] = t.model().as<Leaky>()->max_singular_value();
    }
    if (!f.log.empty()) j["log"] = f.log;
    if (!f.checkpoint.empty()) j["checkpoint"] = f.checkpoint;
    if (o.float32) j["float32"] = true;
    // This run's wall time in the updates and in the monitor's records (--monitor-every sets how
    // often the log-likelihood is estimated; it runs between updates, off their clock).
    const Index run_updates = t.updates_done() - first_update;
    const double update_s = t.update_seconds() - seconds_before;
    // (Measured values only: the key names are those tests/cli/mpi_runner.hpp's untimed() drops.)
    j["timing"] = {{"seconds", {{"updates", update_s}, {"monitor", t.monitor_seconds()}}},
                   {"updates_per_s", update_s > 0 ? static_cast<double>(run_updates) / update_s : 0.0},
                   {"monitor_share",
                    update_s + t.monitor_seconds() > 0 ? t.monitor_seconds() / (update_s + t.monitor_seconds()) : 0.0}};
    // What the log-likelihood records used (docs/methods/training.md#monitor).
    const Index rows = o.monitor_examples > 0 ? std::min(o.monitor_examples, t.data().size()) : t.data().size();
    j["monitor"] = {{"rows", rows},
                    {"rows_of", t.data().size()},
                    {"rows_choice", rows < t.data().size() ? "subset drawn from the seed" : "all"},
                    {"ais_chains", o.ais_chains},
                    {"ais_steps", o.ais_steps}};
    if (mpi::World& world = mpi::world(); world.distributed()) {
        // Payload all ranks handed to MPI: per update each rank sends its rows' hidden factors and
        // negative rows (BRBM, leaky) or its tiles' score sums (GRBM) to every other rank, plus the
        // chains before a checkpoint (docs/user/cluster.md).
        double total = 0;
        for (double b : bytes_sent) total += b;
        const double updates = std::max<double>(1.0, static_cast<double>(t.updates_done() - first_update));
        j["mpi"] = {{"ranks", world.size()}, {"bytes_sent", total}, {"bytes_sent_per_update", total / updates}};
        const std::vector<Index> idle = t.idle_parts(world.size());
        j["mpi"]["idle_ranks"] = idle;
        if (!idle.empty()) {
            const Index neg =
                t.options().chains > 0 && t.options().method != TrainMethod::Cd ? t.options().chains : o.batch;
            j["mpi"]["note"] = std::to_string(idle.size()) + " of " + std::to_string(world.size()) +
                               " ranks idle: the batch and the " + std::to_string(neg) + " negative-phase rows make " +
                               std::to_string(gradient_tiles(neg)) + " tile(s) of " + std::to_string(kGradientTile) +
                               " rows (each rank sums whole tiles); more --chains or a larger --batch give them work";
        }
    }
    j["complete"] = t.status() != TrainStatus::Cancelled;
    return j;
}

json run_train(const std::vector<std::string>& argv) {
    Args a = train_args();
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    TrainFiles files = read_output_files(a);
    ThreadLimit limit(static_cast<int>(a.get_int("threads", 0, 0, 1024)));
    TrainingData applied;
    Trainer t = make_trainer(a, load_data(a, a.get("data", ""), &applied));
    if (auto spec = a.get("test-data")) t.set_test_data(load_data(a, *spec).X);  // before the first record
    // The checkpoint's build (--resume) against this one's; the checkpoints written now record this one.
    const std::string resumed_from = t.recorded_provenance();
    t.set_provenance(provenance_json(threads_in_force(), mpi::world().size()).dump());
    read_checkpointing(a, files);
    mpi::WorldPtExchange exchange;
    const Index first_update = t.updates_done();
    const double seconds_before = t.update_seconds();
    const std::vector<double> bytes_sent = train(a, t, files, exchange, first_update);
    write_outputs(t, files, applied);
    json j = train_result(t, files, bytes_sent, first_update, seconds_before);
    if (!resumed_from.empty()) {
        const std::string d = build_difference(build_record(json::parse(resumed_from)), build_record(build_json()));
        if (!d.empty()) j["warnings"].push_back("--resume: the checkpoint was " + d);
    }
    return j;
}

json run_data_info(const std::vector<std::string>& argv) {
    Args a("data-info", {"DATA"}, data_options(),
           "What a data spec loads to: examples, dimension, image shape, labels, value range.\n"
           "DATA: bars:D, bars:D:COUNT[:SEED], digits, fashion-mnist[:test], FILE.csv, FILE.csv.gz or "
           "FILE-idx3-ubyte[.gz].");
    a.parse(argv);
    if (a.help_requested()) {
        std::cout << a.usage();
        return nullptr;
    }
    return data_summary(load_data(a, a.positional(0)));
}

}  // namespace

REGISTER_COMMAND("train", "train a BRBM, GRBM or leaky RBM (cd, pcd, pt, lpt, deo, leaky, mix)", run_train);
REGISTER_COMMAND("data-info", "describe a training data set (bars, digits, CSV, IDX)", run_data_info);

}  // namespace rbm::cli
