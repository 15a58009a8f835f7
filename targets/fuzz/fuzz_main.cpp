// The on-core loader fuzzer: what tests/fuzz/fuzz_loader.cpp does on the
// host, on an emulated core, where the DSP and MVE kernels run as they ship.
//
//   -append "--corpus LIST [--seed N] [--first I] [--count C] [--budget P]
//            [--save PREFIX] [--verbose]"
//   -append "--self-test"   (the sandbox catches what it should: self_test.h)
//
// LIST names the corpus, one path per line: programs planned for this core
// and regression inputs. Program I of a run is corpus entry I as it is
// while I is below the corpus size (so every seed and regression is
// replayed), otherwise a mutation, drawn from (N, I), of an entry planned
// for this core's ISA class (mutator.h). Each gets the host fuzzer's
// fix-ups (tests/fuzz/program_fixups.h), is loaded, and runs when it loads,
// both in the sandbox (sandbox.h): unprivileged, under the MPU, with a
// budget of P SysTick periods per call (about 10 million instructions each
// under QEMU's -icount shift=0). The program copy is read-only to it; the
// arena, filled as the host fuzzer fills it, lies between guard zones
// (harness.h). A fault (in the loader or in an operation), a write into a
// guard zone or a call over the budget prints what happened, where, the
// mutations and the arguments that replay the program alone, and saves its
// bytes as PREFIX<kind>-s<N>-<I>.tao: a regression input as it is
// (tests/fuzz/regressions/loader/). The summary counts programs, loads
// refused (per status), runs completed, refused at run time, faults, guard
// breaches and timeouts, and operations run per kernel variant.
//
// Exit status: 1 when a program faulted or wrote outside its arena,
// otherwise 0 (timeouts are counted apart); board exit codes (board.h) for
// a bad command line or file.
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "corpus.h"
#include "harness.h"
#include "mutator.h"
#include "program_fixups.h"
#include "self_test.h"
#include "semihosting.h"
#include "session.h"
#include "text.h"
#include "tinyaot/runtime.h"

using namespace tinyaot;
using namespace tinyaot::fuzz;

namespace {

constexpr uint32_t kStatusCount = static_cast<uint32_t>(Status::kBadArgument) + 1;
constexpr uint32_t kMaxVariants = 128;

struct Options {
  const char* corpus = nullptr;
  uint64_t seed = 1;
  uint64_t first = 0;
  uint64_t count = 1000;
  uint64_t budget = 20;
  const char* save = "";
  bool verbose = false;
  bool self_test = false;
};

struct Counts {
  uint64_t programs = 0;
  uint64_t accepted = 0;
  uint64_t completed = 0;
  uint64_t refused_at_run = 0;
  uint64_t faults = 0;
  uint64_t breaches = 0;
  uint64_t timeouts = 0;
  uint64_t too_big = 0;
  uint64_t load_statuses[kStatusCount] = {};
  uint64_t run_statuses[kStatusCount] = {};
  uint64_t variant_runs[kMaxVariants] = {};
};

// One program of the run: where it comes from and what was done to it.
struct Case {
  uint64_t index;
  const Entry* entry;
  MutationTrace trace;
};

char g_command_line[512];
Options g_options;
Corpus g_corpus;
Counts g_counts;
Layout g_layout;
Program g_loaded;  // the loaded program, out of the sandbox's reach

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

void print_problem(const char* what, const char* detail) {
  board::Line line;
  board::print(line.text("tinyaot-fuzz: ").text(what).text(detail).c_str());
}

bool parse_options() {
  if (!semihosting::command_line(g_command_line, sizeof(g_command_line))) return false;
  char* cursor = g_command_line;
  semihosting::next_token(&cursor);  // the firmware's path
  for (char* token = semihosting::next_token(&cursor); token != nullptr;
       token = semihosting::next_token(&cursor)) {
    if (strcmp(token, "--verbose") == 0 || strcmp(token, "--self-test") == 0) {
      (token[2] == 'v' ? g_options.verbose : g_options.self_test) = true;
      continue;
    }
    char* value = semihosting::next_token(&cursor);
    bool ok = value != nullptr;
    if (!ok) {
    } else if (strcmp(token, "--corpus") == 0) {
      g_options.corpus = value;
    } else if (strcmp(token, "--save") == 0) {
      g_options.save = value;
    } else if (strcmp(token, "--seed") == 0) {
      ok = semihosting::parse_unsigned(value, &g_options.seed);
    } else if (strcmp(token, "--first") == 0) {
      ok = semihosting::parse_unsigned(value, &g_options.first);
    } else if (strcmp(token, "--count") == 0) {
      ok = semihosting::parse_unsigned(value, &g_options.count);
    } else if (strcmp(token, "--budget") == 0) {
      ok = semihosting::parse_unsigned(value, &g_options.budget) && g_options.budget != 0 &&
           g_options.budget <= 0xffffffffu;
    } else {
      ok = false;
    }
    if (!ok) {
      print_problem("bad argument near ", token);
      return false;
    }
  }
  if (g_options.corpus == nullptr && !g_options.self_test) {
    print_problem("usage: --corpus LIST [--seed N] [--first I] [--count C] [--budget P]",
                  " [--save PREFIX] [--verbose], or --self-test");
    return false;
  }
  return true;
}

void make_case(uint64_t index, Case* c) {
  c->index = index;
  c->trace.count = 0;
  if (index < g_corpus.size) {
    c->entry = &g_corpus.entries[index];
    memcpy(g_layout.program, c->entry->data, c->entry->bytes);
  } else {
    Random random(g_options.seed, index);
    c->entry = &g_corpus.entries[g_corpus.mutable_entries[random.below(g_corpus.num_mutable)]];
    memcpy(g_layout.program, c->entry->data, c->entry->bytes);
    mutate_program(g_layout.program, c->entry->bytes, random, &c->trace);
  }
  fix_up_program(g_layout.program, c->entry->bytes);
}

// A failing program's story, and its bytes saved for replay. `kind` is
// "fault", "guard" or "timeout"; `loading`: it happened in the loader.
void report(const Case& c, const char* kind, bool loading, const GuardedRun& run) {
  const Program& p = g_loaded;
  const uint32_t operation = g_layout.shared->operation;
  board::Line head;
  head.text("tinyaot-fuzz-")
      .text(kind)
      .text(": program ")
      .dec(c.index)
      .text(" of seed ")
      .dec(g_options.seed)
      .text(", ")
      .text(c.entry->name)
      .text(" with ")
      .dec(c.trace.count)
      .text(" mutation(s), ");
  if (loading) {
    head.text("in the loader");
  } else if (operation >= p.header->num_ops) {
    head.text("after the last operation");
  } else {
    const OpRecord& op = p.ops[operation];
    head.text("operation ")
        .dec(operation)
        .text(" (")
        .text(find_kernel(p.kernels[op.kernel].kernel_id)->name)
        .text(", model operator ")
        .dec(op.source_index)
        .text(")");
  }
  board::print(head.c_str());
  board::Line what;
  what.text("  ");
  if (kind[0] == 'g') {
    what.text("wrote into a guard zone, first at arena ")
        .text(run.breach_at < 0 ? "- " : "+ ")
        .dec(static_cast<uint64_t>(run.breach_at < 0 ? -run.breach_at : run.breach_at))
        .text(" (the arena is ")
        .dec(p.header->arena_bytes)
        .text(" bytes)");
  } else if (kind[0] == 't') {
    what.text("still running after ").dec(g_options.budget).text(" budget periods");
  } else {
    const FaultReport& f = run.fault;
    what.text(f.trap ? "trap (undefined behaviour under the sanitizer)"
                     : board::exception_name(f.exception));
    if (f.frame_read) what.text(" pc=").hex(f.pc).text(" lr=").hex(f.lr);
    what.text(" cfsr=").hex(f.cfsr).text(" hfsr=").hex(f.hfsr);
    what.text(" mmfar=").hex(f.mmfar).text(" bfar=").hex(f.bfar);
  }
  board::print(what.c_str());
  for (uint32_t i = 0; i < c.trace.count; ++i) {
    const Mutation& m = c.trace.applied[i];
    board::Line line;
    line.text("  mutation: ").text(m.what).text(" in ").text(m.area);
    board::print(line.text(" at ").dec(m.offset).text(": ").hex(m.value).c_str());
  }
  if (g_layout.shared->log[0] != '\0') {
    board::Line line;
    board::print(line.text("  last log line: ").text(g_layout.shared->log).c_str());
  }
  board::Line path;
  path.text(g_options.save).text(kind).text("-s").dec(g_options.seed).text("-").dec(c.index);
  path.text(".tao");
  const bool saved = runner::write_file(path.c_str(), g_layout.program, c.entry->bytes) == 0;
  board::Line replay;
  replay.text("  replay: --seed ").dec(g_options.seed).text(" --first ").dec(c.index);
  replay.text(" --count 1; bytes ").text(saved ? "saved as " : "not saved: ").text(path.c_str());
  board::print(replay.c_str());
}

// With --verbose, one line per program: its origin and what became of it.
void note(const Case& c, const char* outcome, uint32_t status) {
  if (!g_options.verbose) return;
  board::Line line;
  line.text("tinyaot-fuzz-program: ").dec(c.index).text(" from ").text(c.entry->name);
  line.text(" with ").dec(c.trace.count).text(" mutation(s): ").text(outcome);
  if (status != 0) line.text(" ").text(status_name(static_cast<Status>(status)));
  board::print(line.c_str());
}

void count_operations(uint32_t completed) {
  const Program& p = g_loaded;
  if (completed > p.header->num_ops) completed = p.header->num_ops;
  for (uint32_t i = 0; i < completed; ++i) {
    const uint32_t id = p.kernels[p.ops[i].kernel].kernel_id;
    if (id < kMaxVariants) ++g_counts.variant_runs[id];
  }
}

uint32_t status_slot(uint32_t status) { return status < kStatusCount ? status : 0; }

// Loads and runs one program; returns false when it faulted or wrote
// outside its arena.
bool run_case(uint64_t index) {
  Case c;
  make_case(index, &c);
  ++g_counts.programs;
  Shared& shared = *g_layout.shared;
  memset(&shared, 0, sizeof(shared));
  shared.program_data = g_layout.program;
  shared.program_bytes = c.entry->bytes;
  const Span program{address(g_layout.program), address(g_layout.program) + c.entry->bytes};
  GuardedRun load{};
  load.exit = sandbox_call(sandboxed_load, &shared, {program, {0, 0}}, &load.result, &load.fault);
  if (load.exit != SandboxExit::kReturned) {
    const bool timeout = load.exit == SandboxExit::kTimeout;
    ++(timeout ? g_counts.timeouts : g_counts.faults);
    report(c, timeout ? "timeout" : "fault", true, load);
    return timeout;
  }
  if (load.result != static_cast<uint32_t>(Status::kOk)) {
    ++g_counts.load_statuses[status_slot(load.result)];
    note(c, "refused at load", load.result);
    return true;
  }
  ++g_counts.accepted;
  g_loaded = shared.program;
  const uint32_t arena_bytes = g_loaded.header->arena_bytes;
  if (arena_bytes > g_layout.arena_capacity) {
    ++g_counts.too_big;
    note(c, "arena too big to run", 0);
    return true;
  }
  const GuardedRun run = run_guarded(g_layout, sandboxed_run, arena_bytes, program);
  count_operations(shared.operation);
  if (run.exit == SandboxExit::kReturned) {
    note(c, run.result == 0 ? "completed" : "refused at run", run.result);
    if (run.result == static_cast<uint32_t>(Status::kOk)) {
      ++g_counts.completed;
    } else {
      ++g_counts.refused_at_run;
      ++g_counts.run_statuses[status_slot(run.result)];
    }
  } else {
    const bool timeout = run.exit == SandboxExit::kTimeout;
    ++(timeout ? g_counts.timeouts : g_counts.faults);
    report(c, timeout ? "timeout" : "fault", false, run);
  }
  if (run.breached) {
    ++g_counts.breaches;
    report(c, "guard", false, run);
  }
  return run.exit != SandboxExit::kFault && !run.breached;
}

void print_count(const char* key, const char* name, uint64_t value) {
  board::Line line;
  board::print(line.text(key).text(name).text(" ").dec(value).c_str());
}

void print_summary() {
  const Counts& n = g_counts;
  board::Line line;
  line.text("tinyaot-fuzz-summary: programs ").dec(n.programs);
  line.text(" accepted ").dec(n.accepted).text(" completed ").dec(n.completed);
  line.text(" refused_at_run ").dec(n.refused_at_run).text(" faults ").dec(n.faults);
  line.text(" guard_breaches ").dec(n.breaches).text(" timeouts ").dec(n.timeouts);
  board::print(line.text(" arena_too_big ").dec(n.too_big).c_str());
  for (uint32_t s = 0; s < kStatusCount; ++s) {
    const char* name = status_name(static_cast<Status>(s));
    if (n.load_statuses[s] != 0)
      print_count("tinyaot-fuzz-refused-at-load: ", name, n.load_statuses[s]);
    if (n.run_statuses[s] != 0)
      print_count("tinyaot-fuzz-refused-at-run: ", name, n.run_statuses[s]);
  }
  for (uint32_t id = 0; id < kernel_count() && id < kMaxVariants; ++id) {
    if (n.variant_runs[id] != 0)
      print_count("tinyaot-fuzz-variant: ", find_kernel(id)->name, n.variant_runs[id]);
  }
}

}  // namespace

int main() {
  if (!parse_options()) return board::kExitUsage;
  uint32_t code = plan_layout(static_cast<uint32_t>(g_options.budget), &g_layout);
  if (code != 0) return static_cast<int>(code);
  if (g_options.self_test) return static_cast<int>(run_self_test(g_layout));
  if ((code = read_corpus(g_options.corpus, g_layout, &g_corpus)) != 0)
    return static_cast<int>(code);
  set_log_hook(capture_log);
  board::Line start;
  start.text("tinyaot-fuzz: corpus of ").dec(g_corpus.size).text(" (").dec(g_corpus.num_mutable);
  start.text(" to mutate), programs ").dec(g_options.first);
  start.text("..").dec(g_options.first + g_options.count - 1).text(" of seed ").dec(g_options.seed);
  board::print(start.text(", arena up to ").dec(g_layout.arena_capacity).text(" bytes").c_str());
  bool clean = true;
  for (uint64_t i = 0; i < g_options.count; ++i) clean = run_case(g_options.first + i) && clean;
  print_summary();
  return clean ? 0 : 1;
}
