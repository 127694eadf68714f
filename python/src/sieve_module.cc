// crawl_sieve._sieve: the Sieve for Python (pybind11). The Pythonic surface
// (iteration, context manager, len, exceptions' classes) is in
// crawl_sieve/__init__.py; this file is the thin binding under it.
//
// The GIL: every call that takes the Sieve's locks releases it first (a pop
// that blocks, a batch push, but also a single push and Stats). A thread
// holding the Sieve's locks may need the GIL (the log callback runs Python),
// so no thread may hold the GIL while it waits for those locks, or the two
// would deadlock.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sieve/sieve.h"

namespace py = pybind11;

namespace {

// absl::Status -> the Python exception crawl_sieve documents: ValueError for
// bad options, FileNotFoundError for a missing checkpoint, SieveError for
// the rest (a damaged checkpoint, a disk error).
[[noreturn]] void Raise(const absl::Status& status) {
  const std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      throw py::value_error(message);
    case absl::StatusCode::kNotFound:
      PyErr_SetString(PyExc_FileNotFoundError, message.c_str());
      throw py::error_already_set();
    default: {
      py::object error = py::module_::import("crawl_sieve._errors").attr("SieveError");
      PyErr_SetObject(error.ptr(), py::str(message).ptr());
      throw py::error_already_set();
    }
  }
}

// A Python callable(level: int, message: str) as a LogSink. It holds the
// callable by a shared pointer whose deleter takes the GIL (the sink may be
// destroyed from a thread without it).
sieve::LogSink PythonSink(py::object log) {
  if (log.is_none()) return nullptr;
  auto held = std::shared_ptr<py::object>(new py::object(std::move(log)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
  return [held](sieve::LogLevel level, std::string_view message) {
    py::gil_scoped_acquire gil;
    try {
      (*held)(static_cast<int>(level), py::str(message.data(), message.size()));
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("crawl_sieve log callback");
    }
  };
}

sieve::SieveOptions OptionsOf(uint64_t expected_count, double fp_rate, size_t budget,
                              const std::string& spill_dir, const std::string& overflow,
                              py::object log, bool lifo = false) {
  sieve::SieveOptions options;
  options.lane_order = lifo ? sieve::LaneOrder::kLifo : sieve::LaneOrder::kFifo;
  options.expected_count = expected_count;
  options.fp_rate = fp_rate;
  options.queue_memory_budget_bytes = budget;
  options.spill_dir = spill_dir;
  absl::StatusOr<sieve::OverflowPolicy> policy = sieve::ParseOverflowPolicy(overflow);
  if (!policy.ok()) Raise(policy.status());
  options.overflow_policy = *policy;
  options.log_sink = PythonSink(std::move(log));
  return options;
}

py::object EntryOrNone(std::optional<sieve::SieveEntry> entry) {
  if (!entry.has_value()) return py::none();
  return py::make_tuple(py::str(entry->url), py::bytes(entry->payload), entry->priority);
}

py::dict StatsDict(const sieve::SieveStats& s) {
  py::dict d;
  d["queued"] = s.queued;
  d["in_flight"] = s.in_flight;
  d["accepted"] = s.accepted;
  d["dropped"] = s.dropped;
  d["popped"] = s.popped;
  d["done"] = s.done;
  d["deferred"] = s.deferred;
  d["lost"] = s.lost;
  d["refused"] = s.refused;
  d["producers"] = s.producers;
  d["closed"] = s.closed;
  // None when the filter is saturated (filter_saturated): no estimate.
  if (s.estimated_count.has_value()) {
    d["estimated_count"] = *s.estimated_count;
  } else {
    d["estimated_count"] = pybind11::none();
  }
  d["filter_saturated"] = s.filter_saturated;
  d["capacity"] = s.capacity;
  d["target_fp_rate"] = s.target_fp_rate;
  d["current_fp_rate"] = s.current_fp_rate;
  d["fill_ratio"] = s.fill_ratio;
  d["overflow_warnings"] = s.overflow_warnings;
  d["filter_bytes"] = s.filter_bytes;
  d["queue_memory_bytes"] = s.queue_memory_bytes;
  d["queue_disk_bytes"] = s.queue_disk_bytes;
  d["spilled_segments"] = s.spilled_segments;
  d["spill_failures"] = s.spill_failures;  // Health() says why
  // The highest lanes (at most sieve::kTopLanesInStats), highest first.
  py::dict lanes;
  for (const sieve::LaneStats& lane : s.top_lanes) lanes[py::int_(lane.priority)] = lane.queued;
  d["lanes"] = lanes;
  d["lane_count"] = s.lanes;
  return d;
}

// The Python object: owns the Sieve.
class PySieve {
 public:
  explicit PySieve(std::unique_ptr<sieve::Sieve> sieve) : sieve_(std::move(sieve)) {}

  static PySieve Create(uint64_t expected_count, double fp_rate, size_t budget,
                        const std::string& spill_dir, const std::string& overflow, py::object log,
                        bool lifo) {
    sieve::SieveOptions options =
        OptionsOf(expected_count, fp_rate, budget, spill_dir, overflow, std::move(log), lifo);
    absl::StatusOr<std::unique_ptr<sieve::Sieve>> made;
    {
      py::gil_scoped_release nogil;  // allocates (and may zero) the whole filter
      made = sieve::Sieve::Create(options);
    }
    if (!made.ok()) Raise(made.status());
    return PySieve(*std::move(made));
  }

  static PySieve Open(const std::string& dir, size_t budget, const std::string& spill_dir,
                      py::object log) {
    sieve::SieveOptions runtime = OptionsOf(1, 0.01, budget, spill_dir, "warn", std::move(log));
    absl::StatusOr<std::unique_ptr<sieve::Sieve>> made;
    {
      py::gil_scoped_release nogil;
      made = sieve::Sieve::Open(dir, runtime);
    }
    if (!made.ok()) Raise(made.status());
    return PySieve(*std::move(made));
  }

  bool Push(const std::string& url, const std::string& payload, int32_t priority) {
    if (payload.size() > sieve::kMaxPayloadBytes) {
      sieve_->Push(url, payload, priority);  // counted in Stats().refused
      throw py::value_error("payload of " + std::to_string(payload.size()) +
                            " bytes is over the limit of " +
                            std::to_string(sieve::kMaxPayloadBytes));
    }
    bool accepted = false;
    {
      py::gil_scoped_release nogil;
      accepted = sieve_->Push(url, payload, priority);
    }
    if (!accepted) RaiseIfPriorityRefused(priority);
    return accepted;
  }

  // A push refused for its priority (not because the URL was seen) raises
  // SieveError saying why.
  void RaiseIfPriorityRefused(int32_t priority) const {
    if (sieve_->AcceptsPriority(priority)) return;
    Raise(absl::ResourceExhaustedError(
        "push at priority " + std::to_string(priority) +
        " refused: " + std::to_string(sieve::kMaxLanes) +
        " priorities already have URLs queued (the most a Sieve keeps at once)"));
  }

  // PushLazy with a Python callable returning bytes or None. The GIL is
  // released while the Sieve works and taken again only inside the callable:
  // the Sieve calls it under a lock of its own, and a thread that held the
  // GIL while waiting for that lock could deadlock with one calling the log
  // sink (which takes the GIL) under it. An exception from the callable, or
  // a result that is neither bytes nor None (TypeError), refuses the push and
  // is raised here: no exception crosses the Sieve's C++ code.
  bool PushLazy(const std::string& url, const py::function& make_payload, int32_t priority) {
    std::optional<py::error_already_set> error;
    bool not_bytes = false;
    bool accepted = false;
    {
      py::gil_scoped_release nogil;
      accepted = sieve_->PushLazy(
          url,
          [&]() -> std::optional<std::string> {
            py::gil_scoped_acquire gil;
            try {
              py::object made = make_payload();
              if (made.is_none()) return std::nullopt;
              return made.cast<std::string>();
            } catch (py::error_already_set& e) {
              error.emplace(std::move(e));
              return std::nullopt;
            } catch (const py::cast_error&) {
              not_bytes = true;
              return std::nullopt;
            }
          },
          priority);
    }
    if (error.has_value()) throw std::move(*error);
    if (not_bytes) throw py::type_error("push_lazy: make_payload must return bytes or None");
    if (!accepted) RaiseIfPriorityRefused(priority);
    return accepted;
  }

  // For a Sieve used as a seen-set alone (the Scrapy dupefilter): Push, and
  // if the key was new take it out of the queue at once, so the queue stays
  // empty and only the filter grows. Correct only when nothing else pops
  // this Sieve (the key popped is then the one just pushed).
  bool InsertIfNew(const std::string& key) {
    py::gil_scoped_release nogil;
    if (!sieve_->Push(key)) return false;
    if (std::optional<sieve::SieveEntry> entry = sieve_->TryPopEntry()) {
      sieve_->MarkDone(entry->url);
    }
    return true;
  }

  std::vector<bool> PushBatch(const std::vector<std::string>& urls,
                              const std::optional<std::vector<std::string>>& payloads,
                              const std::optional<std::vector<int32_t>>& priorities) {
    if (payloads.has_value() && payloads->size() != urls.size()) {
      throw py::value_error("payloads must have one element per URL (" +
                            std::to_string(urls.size()) + "), not " +
                            std::to_string(payloads->size()));
    }
    if (priorities.has_value() && priorities->size() != urls.size()) {
      throw py::value_error("priorities must have one element per URL (" +
                            std::to_string(urls.size()) + "), not " +
                            std::to_string(priorities->size()));
    }
    const absl::Span<const int32_t> priority_span =
        priorities.has_value() ? absl::MakeConstSpan(*priorities) : absl::Span<const int32_t>();
    std::vector<std::string_view> url_views(urls.begin(), urls.end());
    std::vector<std::string_view> payload_views;
    if (payloads.has_value()) payload_views.assign(payloads->begin(), payloads->end());
    std::unique_ptr<bool[]> accepted(new bool[urls.size()]);
    {
      py::gil_scoped_release nogil;
      sieve_->PushBatch(url_views, payload_views, priority_span,
                        absl::Span<bool>(accepted.get(), urls.size()));
    }
    return std::vector<bool>(accepted.get(), accepted.get() + urls.size());
  }

  // Blocking pop: timeout None waits as long as it takes; a timeout in
  // seconds returns None when it expires.
  py::object Pop(std::optional<double> timeout) {
    std::optional<sieve::SieveEntry> entry;
    {
      py::gil_scoped_release nogil;
      if (!timeout.has_value()) {
        entry = sieve_->PopEntry();
      } else {
        const auto ms =
            std::chrono::milliseconds(static_cast<int64_t>(std::max(0.0, *timeout) * 1000.0 + 0.5));
        entry = sieve_->PopEntryFor(ms);
      }
    }
    return EntryOrNone(std::move(entry));
  }

  py::object TryPop() {
    std::optional<sieve::SieveEntry> entry;
    {
      py::gil_scoped_release nogil;
      entry = sieve_->TryPopEntry();
    }
    return EntryOrNone(std::move(entry));
  }

  bool Done(const std::string& url) {
    py::gil_scoped_release nogil;
    return sieve_->MarkDone(url);
  }
  bool Defer(const std::string& url) {
    py::gil_scoped_release nogil;
    return sieve_->Defer(url);
  }
  void Close() {
    py::gil_scoped_release nogil;
    sieve_->Close();
  }
  bool IsFinished() const {
    py::gil_scoped_release nogil;
    return sieve_->IsFinished();
  }
  void AddProducer() {
    py::gil_scoped_release nogil;
    sieve_->AddProducer();
  }
  void ProducerDone() {
    py::gil_scoped_release nogil;
    sieve_->ProducerDone();
  }
  py::dict Stats() const {
    sieve::SieveStats stats;
    {
      py::gil_scoped_release nogil;
      stats = sieve_->Stats();
    }
    return StatsDict(stats);
  }
  // Health(): None while the Sieve keeps its contract, else the failure
  // raised as Raise maps it (SieveError: a spill that fails, data lost).
  void Health() const {
    absl::Status status;
    {
      py::gil_scoped_release nogil;
      status = sieve_->Health();
    }
    if (!status.ok()) Raise(status);
  }
  uint64_t Queued() const {
    py::gil_scoped_release nogil;
    return sieve_->Stats().queued;
  }
  void Save(const std::string& dir) const {
    absl::Status status;
    {
      py::gil_scoped_release nogil;
      status = sieve_->Save(dir);
    }
    if (!status.ok()) Raise(status);
  }

 private:
  std::unique_ptr<sieve::Sieve> sieve_;
};

}  // namespace

PYBIND11_MODULE(_sieve, m) {
  m.doc() = "The Sieve's binding; use the crawl_sieve package, not this module.";
  m.attr("MAX_PAYLOAD_BYTES") = sieve::kMaxPayloadBytes;
  m.attr("MAX_LANES") = sieve::kMaxLanes;
  py::class_<PySieve>(m, "_Sieve")
      .def_static("create", &PySieve::Create, py::arg("expected_count"), py::arg("fp_rate"),
                  py::arg("queue_memory_budget_bytes"), py::arg("spill_dir"), py::arg("overflow"),
                  py::arg("log"), py::arg("lifo") = false)
      .def_static("open", &PySieve::Open, py::arg("dir"), py::arg("queue_memory_budget_bytes"),
                  py::arg("spill_dir"), py::arg("log"))
      .def("push", &PySieve::Push, py::arg("url"), py::arg("payload"), py::arg("priority") = 0)
      .def("push_lazy", &PySieve::PushLazy, py::arg("url"), py::arg("make_payload"),
           py::arg("priority") = 0)
      .def("insert_if_new", &PySieve::InsertIfNew, py::arg("key"))
      .def("push_batch", &PySieve::PushBatch, py::arg("urls"), py::arg("payloads"),
           py::arg("priorities") = py::none())
      .def("pop", &PySieve::Pop, py::arg("timeout"))
      .def("try_pop", &PySieve::TryPop)
      .def("done", &PySieve::Done, py::arg("url"))
      .def("defer", &PySieve::Defer, py::arg("url"))
      .def("close", &PySieve::Close)
      .def("is_finished", &PySieve::IsFinished)
      .def("add_producer", &PySieve::AddProducer)
      .def("producer_done", &PySieve::ProducerDone)
      .def("stats", &PySieve::Stats)
      .def("health", &PySieve::Health)
      .def("queued", &PySieve::Queued)
      .def("save", &PySieve::Save, py::arg("dir"));
}
