/* The toolchain matrix's firmware: one exported library holding several
 * programs (tinyaot export a.tao b.tao ... --name models), run on input
 * files named on the command line as "<model> <path>" pairs; prints
 * "output <model>: <hex bytes>" per run.
 *
 * TINYAOT_MODELS lists the programs, X(prefix, PREFIX) each, e.g.
 *   -DTINYAOT_MODELS="X(kws, KWS) X(vww, VWW)"
 * for the functions models_kws_init ... and macros MODELS_KWS_... of
 * models.h. Every listed model has one input and one output. */
#include <stdint.h>
#include <string.h>

#include "console.h"
#include "models.h"

#define CAT3(a, b, c) a##b##c
#define FUNCTION(prefix, name) CAT3(models_, prefix, name)
#define MACRO(PREFIX, NAME) CAT3(MODELS_, PREFIX, NAME)

/* One arena for all, as large as the largest plan. */
static union {
#define X(prefix, PREFIX) uint8_t prefix[MACRO(PREFIX, _ARENA_BYTES)];
  TINYAOT_MODELS
#undef X
} arena __attribute__((aligned(MODELS_ARENA_ALIGNMENT)));

struct Model {
  const char* name;
  int (*init)(void);
  void* (*input)(uint8_t* arena, int index);
  const void* (*output)(const uint8_t* arena, int index);
  int (*invoke)(uint8_t* arena);
  uint32_t input_bytes, output_bytes;
};

static const struct Model kModels[] = {
#define X(prefix, PREFIX)        \
  {#prefix,                      \
   FUNCTION(prefix, _init),      \
   FUNCTION(prefix, _input),     \
   FUNCTION(prefix, _output),    \
   FUNCTION(prefix, _invoke),    \
   MACRO(PREFIX, _INPUT0_BYTES), \
   MACRO(PREFIX, _OUTPUT0_BYTES)},
    TINYAOT_MODELS
#undef X
};

#define X(prefix, PREFIX)                                                               \
  _Static_assert(MACRO(PREFIX, _INPUT_COUNT) == 1 && MACRO(PREFIX, _OUTPUT_COUNT) == 1, \
                 #prefix " must have one input and one output");
TINYAOT_MODELS
#undef X

static void print_output(const char* model, const uint8_t* bytes, uint32_t count) {
  static const char digits[] = "0123456789abcdef";
  static char line[64 + 2 * 4096];
  strcpy(line, "output ");
  strcat(line, model);
  strcat(line, ": ");
  uint32_t n = (uint32_t)strlen(line);
  for (uint32_t i = 0; i < count && n + 3 < sizeof(line); ++i) {
    line[n++] = digits[bytes[i] >> 4];
    line[n++] = digits[bytes[i] & 15];
  }
  line[n] = '\0';
  console_print(line);
}

static const struct Model* find_model(const char* name) {
  for (uint32_t i = 0; i < sizeof(kModels) / sizeof(kModels[0]); ++i)
    if (strcmp(kModels[i].name, name) == 0) return &kModels[i];
  return 0;
}

/* The next space-separated word of *cursor, or 0 at the end. */
static char* next_word(char** cursor) {
  while (**cursor == ' ') ++*cursor;
  if (**cursor == '\0') return 0;
  char* word = *cursor;
  while (**cursor != ' ' && **cursor != '\0') ++*cursor;
  if (**cursor == ' ') *(*cursor)++ = '\0';
  return word;
}

int main(void) {
  models_set_log_hook(console_print);
  static char command[8192];
  if (!console_command_line(command, sizeof(command))) return 0xe1;
  char* cursor = command;
  next_word(&cursor); /* the kernel's own path */
  for (char* name; (name = next_word(&cursor)) != 0;) {
    const char* path = next_word(&cursor);
    const struct Model* model = find_model(name);
    if (model == 0 || path == 0) {
      console_print("usage: <model> <input file> pairs, models of TINYAOT_MODELS");
      return 0xe2;
    }
    int status = model->init();
    if (status == MODELS_OK) {
      uint8_t* bytes = (uint8_t*)&arena;
      if (!console_read_file(path, model->input(bytes, 0), model->input_bytes)) {
        console_print("cannot read an input file of the model's input size");
        return 0xe3;
      }
      status = model->invoke(bytes);
      if (status == MODELS_OK)
        print_output(model->name, (const uint8_t*)model->output(bytes, 0), model->output_bytes);
    }
    if (status != MODELS_OK) {
      console_print(models_status_text(status));
      return status;
    }
  }
  return 0;
}
