// Linked with -Wl,--wrap=<symbol> for every allocation entry point: each
// call made from this executable's objects (the runtime library among them)
// lands here, is counted while counting is on, and goes on to the real
// function.
#include "no_heap/wrap_allocations.h"

#include <cstddef>
#include <new>

namespace tinyaot::test {
namespace {
bool g_counting = false;
unsigned long g_calls = 0;
const char* g_first = nullptr;

inline void note(const char* name) {
  if (!g_counting) return;
  if (g_calls++ == 0) g_first = name;
}
}  // namespace

void start_counting_allocations() {
  g_calls = 0;
  g_first = nullptr;
  g_counting = true;
}
unsigned long stop_counting_allocations() {
  g_counting = false;
  return g_calls;
}
const char* first_allocation_function() { return g_first ? g_first : "(none)"; }

}  // namespace tinyaot::test

using std::align_val_t;
using std::nothrow_t;
using std::size_t;
using tinyaot::test::note;

// Declares __real_<symbol> and defines __wrap_<symbol> with one signature.
#define TINYAOT_WRAP(ret, symbol, params, args) \
  extern "C" ret __real_##symbol params;        \
  extern "C" ret __wrap_##symbol params {       \
    note(#symbol);                              \
    return __real_##symbol args;                \
  }

TINYAOT_WRAP(void*, malloc, (size_t n), (n))
TINYAOT_WRAP(void*, calloc, (size_t n, size_t s), (n, s))
TINYAOT_WRAP(void*, realloc, (void* p, size_t n), (p, n))
TINYAOT_WRAP(void, free, (void* p), (p))
TINYAOT_WRAP(void*, aligned_alloc, (size_t a, size_t n), (a, n))
TINYAOT_WRAP(int, posix_memalign, (void** p, size_t a, size_t n), (p, a, n))
TINYAOT_WRAP(void*, memalign, (size_t a, size_t n), (a, n))
TINYAOT_WRAP(void*, valloc, (size_t n), (n))
// operator new / new[] (plain, nothrow, aligned, aligned nothrow)
TINYAOT_WRAP(void*, _Znwm, (size_t n), (n))
TINYAOT_WRAP(void*, _Znam, (size_t n), (n))
TINYAOT_WRAP(void*, _ZnwmRKSt9nothrow_t, (size_t n, const nothrow_t& t), (n, t))
TINYAOT_WRAP(void*, _ZnamRKSt9nothrow_t, (size_t n, const nothrow_t& t), (n, t))
TINYAOT_WRAP(void*, _ZnwmSt11align_val_t, (size_t n, align_val_t a), (n, a))
TINYAOT_WRAP(void*, _ZnamSt11align_val_t, (size_t n, align_val_t a), (n, a))
TINYAOT_WRAP(void*, _ZnwmSt11align_val_tRKSt9nothrow_t,
             (size_t n, align_val_t a, const nothrow_t& t), (n, a, t))
TINYAOT_WRAP(void*, _ZnamSt11align_val_tRKSt9nothrow_t,
             (size_t n, align_val_t a, const nothrow_t& t), (n, a, t))
// operator delete / delete[] (plain, sized, aligned, sized aligned, nothrow)
TINYAOT_WRAP(void, _ZdlPv, (void* p), (p))
TINYAOT_WRAP(void, _ZdaPv, (void* p), (p))
TINYAOT_WRAP(void, _ZdlPvm, (void* p, size_t n), (p, n))
TINYAOT_WRAP(void, _ZdaPvm, (void* p, size_t n), (p, n))
TINYAOT_WRAP(void, _ZdlPvSt11align_val_t, (void* p, align_val_t a), (p, a))
TINYAOT_WRAP(void, _ZdaPvSt11align_val_t, (void* p, align_val_t a), (p, a))
TINYAOT_WRAP(void, _ZdlPvmSt11align_val_t, (void* p, size_t n, align_val_t a), (p, n, a))
TINYAOT_WRAP(void, _ZdaPvmSt11align_val_t, (void* p, size_t n, align_val_t a), (p, n, a))
TINYAOT_WRAP(void, _ZdlPvRKSt9nothrow_t, (void* p, const nothrow_t& t), (p, t))
TINYAOT_WRAP(void, _ZdaPvRKSt9nothrow_t, (void* p, const nothrow_t& t), (p, t))
// Exceptions allocate their object on the heap.
TINYAOT_WRAP(void*, __cxa_allocate_exception, (size_t n), (n))
