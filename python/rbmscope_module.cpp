// rbmscope._rbmscope: the CLI's commands run inside Python (docs/user/python.md). rbmscope/__init__.py
// turns keyword arguments into the command's argv and the result's JSON into dicts and NumPy
// arrays; this file runs the command (run_command, the same code as rbmscope-cli) on a worker
// thread with the GIL released, passes models held in memory, and turns Ctrl-C, progress records
// and errors into their Python forms.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli_command.hpp"
#include "core/io/model_json.hpp"
#include "core/io/presets.hpp"
#include "core/kernels/build_info.hpp"
#include "interrupt.hpp"
#include "mpi/world.hpp"
#include "progress.hpp"

namespace py = pybind11;

namespace {

// One command at a time: the CLI's state (interrupt flag, model sources, memory budget) is per process.
std::mutex g_run_mutex;

// Progress records from the worker (and the core's threads) for the calling thread, which calls
// the Python callback with the GIL.
struct Channel {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::string> records;
    bool done = false;
};
std::shared_ptr<Channel> g_channel;  // the running command's; guarded by g_run_mutex

// A message on one line, as the CLI prints it (a Python traceback shows it after the type).
std::string one_line(std::string s) {
    for (char& ch : s)
        if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
    return s;
}

std::string keyword(std::string option) {
    for (char& ch : option)
        if (ch == '-') ch = '_';
    return option;
}

struct Outcome {
    std::string json_text;  // "null" when the command printed its output itself
    bool partial = false;
    bool interrupted = false;  // Ctrl-C reached the command (KeyboardInterrupt in the caller)
};

// Runs `name argv` with `models` as python:0, python:1, ...; `progress` receives every progress
// record as JSON text (None: records are dropped).
Outcome run(const std::string& name, const std::vector<std::string>& argv,
            const std::vector<std::shared_ptr<rbm::Model>>& models, py::object progress) {
    std::vector<rbm::Model> copies;
    copies.reserve(models.size());
    for (const auto& m : models) copies.push_back(*m);

    std::unique_lock<std::mutex> run_lock(g_run_mutex, std::defer_lock);
    {
        py::gil_scoped_release release;
        run_lock.lock();
    }
    auto channel = std::make_shared<Channel>();
    g_channel = channel;
    rbm::cli::interrupt::flag().store(false);

    rbm::cli::CommandResult result;
    std::exception_ptr error;
    std::thread worker([&, channel] {
        rbm::cli::in_memory_models() = std::move(copies);
        try {
            result = rbm::cli::run_command(name, argv);
        } catch (...) {
            error = std::current_exception();
        }
        rbm::cli::in_memory_models().clear();
        std::lock_guard lock(channel->mutex);
        channel->done = true;
        channel->wake.notify_all();
    });

    // Poll every 50 ms: Python's signal handlers run only on this thread and only with the GIL.
    Outcome outcome;
    std::optional<py::error_already_set> pending;  // from a signal handler or the callback, raised after the join
    for (;;) {
        std::deque<std::string> records;
        bool done = false;
        {
            py::gil_scoped_release release;
            std::unique_lock lock(channel->mutex);
            channel->wake.wait_for(lock, std::chrono::milliseconds(50),
                                   [&] { return channel->done || !channel->records.empty(); });
            records.swap(channel->records);
            done = channel->done;
        }
        if (!pending) {
            try {
                if (PyErr_CheckSignals() != 0) throw py::error_already_set();
                if (!progress.is_none())
                    for (const auto& r : records) progress(r);
            } catch (py::error_already_set& e) {
                // Ctrl-C (or the callback failed): the command stops at its next check of the flag
                // and returns its partial result, which the caller attaches to the exception.
                rbm::cli::interrupt::flag().store(true);
                outcome.interrupted = e.matches(PyExc_KeyboardInterrupt);
                if (!outcome.interrupted) pending.emplace(std::move(e));
            }
        }
        if (done) break;
    }
    {
        py::gil_scoped_release release;
        worker.join();
    }
    g_channel.reset();
    run_lock.unlock();
    if (pending) throw std::move(*pending);

    if (error) {
        try {
            std::rethrow_exception(error);
        } catch (const rbm::Cancelled&) {
            // A phase without a partial result of its own: what the CLI prints then.
            outcome.json_text = nlohmann::json{{"command", name}, {"complete", false}}.dump();
            outcome.partial = true;
            outcome.interrupted = true;
            return outcome;
        } catch (const rbm::cli::UnknownOption& e) {
            std::string msg = "unexpected keyword argument '" + keyword(e.option()) + "' for " + name;
            if (!e.closest().empty()) msg += " (did you mean '" + keyword(e.closest()) + "'?)";
            throw py::type_error(msg);
        } catch (const rbm::InputError& e) {
            throw py::value_error(one_line(e.what()));
        } catch (const nlohmann::json::exception& e) {
            throw py::value_error(one_line(std::string("bad input: ") + e.what()));
        } catch (const std::bad_alloc&) {
            throw std::bad_alloc();  // MemoryError
        } catch (const std::exception& e) {
            throw std::runtime_error(one_line(std::string("internal error: ") + e.what()));
        }
    }
    outcome.json_text = result.out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    outcome.partial = result.partial;
    outcome.interrupted = outcome.interrupted || result.partial;
    return outcome;
}

// A model from the model file's JSON text (what rbmscope.model builds from arrays): the JSON
// loader's checks, then the ones every CLI command applies (require_computable).
std::shared_ptr<rbm::Model> model_from_json(const std::string& text, const std::string& origin) {
    try {
        auto m = std::make_shared<rbm::Model>(rbm::model_from_json_text(text, origin));
        try {
            rbm::require_computable(*m);
        } catch (const rbm::InputError& e) {
            throw rbm::InputError(origin + ": " + e.what());
        }
        return m;
    } catch (const rbm::InputError& e) {
        throw py::value_error(one_line(e.what()));
    }
}

std::shared_ptr<rbm::Model> preset(const std::string& name) {
    try {
        return std::make_shared<rbm::Model>(rbm::resolve_model_argument(name));
    } catch (const rbm::InputError& e) {
        throw py::value_error(one_line(e.what()));
    }
}

}  // namespace

PYBIND11_MODULE(_rbmscope, m) {
    m.doc() = "rbmscope's commands in this process (use the package rbmscope, docs/user/python.md)";
    rbm::cli::interrupt::set_embedded(true);  // SIGINT stays Python's
    // Every record goes to the running command's channel; the calling thread hands it to Python.
    rbm::cli::Progress::set_sink([](const nlohmann::json& record) {
        const std::shared_ptr<Channel> channel = g_channel;  // set and reset under g_run_mutex
        if (!channel) return;
        std::lock_guard lock(channel->mutex);
        channel->records.push_back(record.dump());
        channel->wake.notify_all();
    });

    py::class_<rbm::Model, std::shared_ptr<rbm::Model>>(m, "_Model")
        .def_property_readonly("kind", [](const rbm::Model& x) { return std::string(rbm::kind_name(x.kind())); })
        .def_property_readonly("n", [](const rbm::Model& x) { return static_cast<long long>(x.n_visible()); })
        .def_property_readonly("m", [](const rbm::Model& x) { return static_cast<long long>(x.n_hidden()); })
        .def("to_json", [](const rbm::Model& x) { return rbm::model_to_json_text(x); });

    m.def("model_from_json", &model_from_json, py::arg("text"), py::arg("origin") = "model");
    m.def("preset", &preset, py::arg("name"));
    m.def(
        "run",
        [](const std::string& name, const std::vector<std::string>& argv,
           const std::vector<std::shared_ptr<rbm::Model>>& models, py::object progress) {
            const Outcome o = run(name, argv, models, std::move(progress));
            return py::make_tuple(o.json_text, o.partial, o.interrupted);
        },
        py::arg("name"), py::arg("argv"), py::arg("models"), py::arg("progress") = py::none());
    m.def("build", [] { return rbm::build_json().dump(); });
    m.def("commands", [] {
        std::vector<std::string> names;
        for (const auto& [name, cmd] : rbm::cli::commands()) names.push_back(name);
        return names;
    });
    m.attr("in_memory_prefix") = rbm::cli::kInMemoryPrefix;
}
