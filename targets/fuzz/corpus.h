// The fuzzing firmware's corpus: the programs a list names, read by
// semihosting into the big region, and which of them may be mutated.
#pragma once

#include <stdint.h>

#include "harness.h"

namespace tinyaot::fuzz {

constexpr uint32_t kMaxCorpus = 1024;

struct Entry {
  const char* name;  // the path in the list
  const uint8_t* data;
  uint32_t bytes;
};

struct Corpus {
  Entry entries[kMaxCorpus];
  uint32_t size = 0;
  // The entries planned for this core's ISA class: the others (regression
  // inputs of other cores) are replayed, never mutated (the loader would
  // refuse every mutation at its ISA check).
  uint32_t mutable_entries[kMaxCorpus];
  uint32_t num_mutable = 0;
};

// Reads LIST (one path per line) and every program it names into the
// layout's free big region, 16-byte aligned as load_program requires.
// Prints why and returns a board exit code on failure.
uint32_t read_corpus(const char* list, const Layout& layout, Corpus* corpus);

}  // namespace tinyaot::fuzz
