// A sketch of our own around an exported kws (--name kws), built by
// arduino-builder like the example the export carries: runs the model on
// every golden input of shared/golden/kws_ref_model (golden_vectors.h,
// which export-arduino.sh writes beside a copy of this sketch) and prints
// "output 0: <hex bytes>" per input, two digits a byte.
#include <kws.h>

#include "golden_vectors.h"  // kGoldenCount, kGoldenInputs[kGoldenCount][KWS_INPUT0_BYTES]

alignas(KWS_ARENA_ALIGNMENT) static uint8_t arena[KWS_ARENA_BYTES];

static void log_line(const char* line) { Serial.println(line); }

static void print_status(const char* what, int status) {
  Serial.print(what);
  Serial.print(": ");
  Serial.println(kws_status_text(status));
}

void setup() {
  Serial.begin(115200);
  kws_set_log_hook(log_line);
}

void loop() {
  const int status = kws_init();
  if (status != KWS_OK) {
    print_status("kws_init", status);
    return;
  }
  for (int v = 0; v < kGoldenCount; ++v) {
    memcpy(kws_input(arena, 0), kGoldenInputs[v], KWS_INPUT0_BYTES);
    const int invoked = kws_invoke(arena);
    if (invoked != KWS_OK) {
      print_status("kws_invoke", invoked);
      return;
    }
    const uint8_t* out = (const uint8_t*)kws_output(arena, 0);
    Serial.print("output 0: ");
    for (int i = 0; i < KWS_OUTPUT0_BYTES; ++i) {
      if (out[i] < 16) Serial.print('0');
      Serial.print(out[i], HEX);
    }
    Serial.println();
  }
}
