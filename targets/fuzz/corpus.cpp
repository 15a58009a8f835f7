#include "corpus.h"

#include <string.h>

#include "board.h"
#include "session.h"
#include "text.h"

namespace tinyaot::fuzz {
namespace {

uint8_t* align16(uint8_t* p) {
  return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(p) + 15) & ~uintptr_t{15});
}

uint32_t problem(const char* what, const char* detail, uint32_t code) {
  board::Line line;
  board::print(line.text("tinyaot-fuzz: ").text(what).text(detail).c_str());
  return code;
}

}  // namespace

uint32_t read_corpus(const char* list, const Layout& layout, Corpus* corpus) {
  uint8_t* free = layout.free;
  uint8_t* const end = layout.free_end;
  uint32_t list_bytes = 0;
  uint32_t code = runner::read_file(list, free, static_cast<uint32_t>(end - free) - 1, &list_bytes);
  if (code != 0) return code;
  char* line = reinterpret_cast<char*>(free);
  line[list_bytes] = '\0';
  free = align16(free + list_bytes + 1);
  while (*line != '\0') {
    char* next = strchr(line, '\n');
    if (next != nullptr) *next++ = '\0';
    if (*line != '\0') {
      if (corpus->size == kMaxCorpus)
        return problem("the corpus list is too long", "", board::kExitUsage);
      Entry& entry = corpus->entries[corpus->size++];
      code = runner::read_file(line, free, static_cast<uint32_t>(end - free), &entry.bytes);
      if (code != 0) return code;
      if (entry.bytes > layout.program_capacity)
        return problem("larger than the program copy's room: ", line, board::kExitNoFit);
      entry.name = line;
      entry.data = free;
      free = align16(free + entry.bytes);
      ProgramHeader h;
      if (entry.bytes >= sizeof(h)) {
        memcpy(&h, entry.data, sizeof(h));
        if (h.isa == static_cast<uint32_t>(runtime_isa()))
          corpus->mutable_entries[corpus->num_mutable++] = corpus->size - 1;
      }
    }
    line = next == nullptr ? line + strlen(line) : next;
  }
  if (corpus->num_mutable == 0)
    return problem("no corpus entry is planned for this core's ISA class", "", board::kExitUsage);
  return 0;
}

}  // namespace tinyaot::fuzz
