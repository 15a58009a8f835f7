// A QEMU TCG plugin (API v1, QEMU 7.2) that counts executed guest
// instructions between two marker functions, and optionally splits that
// span at a third.
//
// Every instruction gets its own inline counter increment, so a block left
// early (fault, exception, conditional exit) is never over-counted as a
// whole-block counter would be. The instructions at the marker addresses
// also get a callback: entering the start marker snapshots the counter,
// entering the stop marker prints the span. Each start/stop pair prints one
// line, so a firmware that runs several inferences yields one line each.
// With split=ADDR, every entry into that function between start and stop
// (a profiling runtime's tinyaot_op_boundary) ends one segment and begins
// the next; the segments of one span add up to it exactly.
//
//   -plugin libicount.so,start=0x...,stop=0x...[,split=0x...]
//
// Output (stderr):
//   tinyaot-icount-segment: N  (with split=) instructions from the start
//                              marker or the previous split entry
//                              (included) to this split or the stop
//                              marker (excluded), in execution order,
//                              printed before the span they make up
//   tinyaot-icount-span: N     instructions from the first instruction of
//                              the start marker (included) to the first
//                              instruction of the stop marker (excluded)
//   tinyaot-icount-total: N    every instruction the guest executed
//
// Debian ships QEMU without qemu-plugin.h, so the few declarations this
// plugin needs are written out below; they follow the v1 API of QEMU 7.2.
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;  // only ever received by pointer
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
  QEMU_PLUGIN_CB_NO_REGS,
  QEMU_PLUGIN_CB_R_REGS,
  QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
  QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void* userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn* insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void* userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn* insn,
                                                enum qemu_plugin_op op, void* ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn* insn);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

// The emulated boards have one vCPU, so plain globals are enough.
static uint64_t g_executed;
static uint64_t g_start_addr = UINT64_MAX;
static uint64_t g_stop_addr = UINT64_MAX;
static uint64_t g_split_addr = UINT64_MAX;
static uint64_t g_snapshot;
static uint64_t g_segment_start;
static bool g_armed;

// Straight to stderr: qemu_plugin_outs() would print only under -d plugin.
static void report(const char* key, uint64_t value) {
  fprintf(stderr, "%s: %" PRIu64 "\n", key, value);
  fflush(stderr);
}

static void on_start(unsigned int vcpu_index, void* userdata) {
  (void)vcpu_index;
  (void)userdata;
  g_snapshot = g_executed;
  g_segment_start = g_executed;
  g_armed = true;
}

static void end_segment(void) {
  report("tinyaot-icount-segment", g_executed - g_segment_start);
  g_segment_start = g_executed;
}

static void on_split(unsigned int vcpu_index, void* userdata) {
  (void)vcpu_index;
  (void)userdata;
  if (g_armed) end_segment();
}

static void on_stop(unsigned int vcpu_index, void* userdata) {
  (void)vcpu_index;
  (void)userdata;
  if (!g_armed) return;
  g_armed = false;
  if (g_split_addr != UINT64_MAX) end_segment();
  report("tinyaot-icount-span", g_executed - g_snapshot);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t count = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < count; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    const uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
    // The snapshot callbacks are registered before the increment; either
    // order gives the same span because both markers are treated alike.
    if (vaddr == g_start_addr) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_start, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
    if (vaddr == g_stop_addr) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_stop, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
    if (vaddr == g_split_addr) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_split, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
    qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &g_executed, 1);
  }
}

static void on_guest_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  report("tinyaot-icount-total", g_executed);
}

// nm prints Thumb function symbols with bit 0 set; instruction addresses
// never have it.
static bool parse_address(const char* text, uint64_t* out) {
  char* end = NULL;
  const unsigned long long value = strtoull(text, &end, 0);
  if (end == text || *end != '\0') return false;
  *out = (uint64_t)value & ~(uint64_t)1;
  return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                           char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    bool ok = false;
    if (strncmp(argv[i], "start=", 6) == 0) {
      ok = parse_address(argv[i] + 6, &g_start_addr);
    } else if (strncmp(argv[i], "stop=", 5) == 0) {
      ok = parse_address(argv[i] + 5, &g_stop_addr);
    } else if (strncmp(argv[i], "split=", 6) == 0) {
      ok = parse_address(argv[i] + 6, &g_split_addr);
    }
    if (!ok) {
      fprintf(stderr, "icount plugin: bad argument '%s' (want start=ADDR,stop=ADDR[,split=ADDR])\n", argv[i]);
      return -1;
    }
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
  return 0;
}
